import CSDL2
package import ReelCore

/// A window that shows pictures, through SDL2 (X11 or Wayland): made at a size, given
/// YCbCr 4:2:0 pictures to draw scaled to fit, and asked for the keys pressed.
/// The only holder of SDL's pointers; use it from the thread that made it.
package final class VideoWindow {
    /// The keys `reel play` answers to.
    package enum Key: Sendable, Hashable {
        case space, left, right, comma, period, leftBracket, rightBracket, quit, fullscreen, loop
    }

    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private var texture: OpaquePointer?
    private var textureSize = (width: 0, height: 0)
    private var fullscreen = false

    /// Opens a window of `width`×`height` titled `title`.
    /// - Throws: ``ReelError`` `.deviceNotConnected` with SDL's message when there is no display.
    package init(title: String, width: Int, height: Int) throws(ReelError) {
        guard SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0 else {
            throw ReelError(.deviceNotConnected, "no display for a window: \(Self.lastError())", subject: "SDL")
        }
        let w = Int32(clamping: max(16, width)), h = Int32(clamping: max(16, height))
        guard let window = SDL_CreateWindow(title, reel_sdl_window_centered(), reel_sdl_window_centered(), w, h,
                                            SDL_WINDOW_SHOWN.rawValue | SDL_WINDOW_RESIZABLE.rawValue) else {
            let message = Self.lastError()
            SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw ReelError(.deviceNotConnected, "cannot open a window: \(message)", subject: "SDL")
        }
        // Accelerated when there is a GPU, else SDL's software renderer (an X server without GL).
        guard let renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue)
                ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) else {
            let message = Self.lastError()
            SDL_DestroyWindow(window)
            SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw ReelError(.deviceNotConnected, "cannot draw in a window: \(message)", subject: "SDL")
        }
        self.window = window
        self.renderer = renderer
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
        SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
    }

    /// Draws `picture` (`.yuv420p`) scaled to fit the window, keeping its aspect, and shows it.
    package func show(_ picture: PixelBuffer) throws(ReelError) {
        guard picture.pixelFormat == .yuv420p else {
            throw ReelError(.invalidArgument, "a window shows yuv420p pictures, not \(picture.pixelFormat)", subject: "SDL")
        }
        if texture == nil || textureSize != (picture.width, picture.height) {
            if let texture { SDL_DestroyTexture(texture) }
            // The picture's matrix (ColorMatrix's rule, as Reel decodes and tags): SDL's default
            // is BT.601 at any size, which would shift an HD picture's colours.
            SDL_SetYUVConversionMode(ColorMatrix(height: picture.height) == .bt709 ? SDL_YUV_CONVERSION_BT709
                                         : SDL_YUV_CONVERSION_BT601)
            texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_IYUV.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(clamping: picture.width), Int32(clamping: picture.height))
            textureSize = (picture.width, picture.height)
        }
        guard let texture else { throw ReelError(.outOfMemory, "no texture: \(Self.lastError())", subject: "SDL") }
        picture.withPlane(0) { y, yStride in
            picture.withPlane(1) { u, uStride in
                picture.withPlane(2) { v, vStride in
                    _ = SDL_UpdateYUVTexture(texture, nil, y, Int32(yStride), u, Int32(uStride), v, Int32(vStride))
                }
            }
        }
        var outW: Int32 = 0, outH: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &outW, &outH)
        let scale = min(Double(outW) / Double(picture.width), Double(outH) / Double(picture.height))
        let w = Int32((Double(picture.width) * scale).rounded()), h = Int32((Double(picture.height) * scale).rounded())
        var target = SDL_Rect(x: (outW - w) / 2, y: (outH - h) / 2, w: w, h: h)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        SDL_RenderCopy(renderer, texture, nil, &target)
        SDL_RenderPresent(renderer)
    }

    /// Switches between a window and the whole screen.
    package func toggleFullscreen() {
        fullscreen.toggle()
        SDL_SetWindowFullscreen(window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
    }

    /// The keys pressed since the last call; `.quit` also for the window being closed.
    package func pressedKeys() -> [Key] {
        var keys: [Key] = []
        var event = SDL_Event()
        while SDL_PollEvent(&event) != 0 {
            let type = reel_sdl_event_type(&event)
            if type == Int32(SDL_QUIT.rawValue) {
                keys.append(.quit)
                continue
            }
            guard type == Int32(SDL_KEYDOWN.rawValue) else { continue }
            switch reel_sdl_event_key(&event) {
            case 32: keys.append(.space)
            case 44: keys.append(.comma)
            case 46: keys.append(.period)
            case 91: keys.append(.leftBracket)
            case 93: keys.append(.rightBracket)
            case 113, reel_sdlk_escape(): keys.append(.quit)
            case 102: keys.append(.fullscreen)
            case 108: keys.append(.loop)
            case reel_sdlk_left(): keys.append(.left)
            case reel_sdlk_right(): keys.append(.right)
            default: break
            }
        }
        return keys
    }

    private static func lastError() -> String {
        guard let text = SDL_GetError() else { return "unknown error" }
        return String(cString: text)
    }
}
