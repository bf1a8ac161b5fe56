public import ReelCore
import ReelAsset
import ReelComposition

/// Pulls an item's pictures in step with its player's clock, as a display loop does: ask
/// for the item time of the next refresh (``itemTime(forHostTime:)``), then for the picture
/// there if it is new. `AVPlayerItemVideoOutput`.
///
/// Pictures are rendered by the composition's renderer (the export's), decoding forward from
/// where the last one was; a jump backwards, or more than a second ahead, seeks the open
/// sources to the new time (to the keyframe before it, then decoding to the frame), keeping
/// their files and decoders open.
public final class PlayerItemVideoOutput: Sendable {
    /// The pictures wanted: their format and size. `pixelBufferAttributes`
    /// (`kCVPixelBufferPixelFormatTypeKey`, `kCVPixelBufferWidthKey`, `kCVPixelBufferHeightKey`).
    public struct PixelBufferAttributes: Sendable, Hashable {
        /// `.yuv420p` (the renderer's own, no conversion), `.rgba` or `.bgra`.
        public var pixelFormat: PixelFormat
        /// The size; nil for the video composition's render size.
        public var width: Int?
        public var height: Int?

        /// The pictures an output hands out.
        /// - Parameters:
        ///   - pixelFormat: `.yuv420p` (no conversion), `.rgba` or `.bgra`.
        ///   - width: The width to render at; nil for the video composition's.
        ///   - height: The height to render at; nil for the video composition's.
        public init(pixelFormat: PixelFormat = .yuv420p, width: Int? = nil, height: Int? = nil) {
            self.pixelFormat = pixelFormat
            self.width = width
            self.height = height
        }
    }

    /// A jump further ahead than this seeks the sources rather than decoding up to it.
    static let seekDistance = MediaTime(value: 1, timescale: 1)

    private struct State {
        weak var item: PlayerItem?
        var reader: CompositionPlaybackReader?
        /// The last time the reader was asked for (it only reads forward).
        var readerTime = MediaTime.invalid
        /// The display time of the last picture handed out.
        var lastCopied = MediaTime.invalid
    }

    public let pixelBufferAttributes: PixelBufferAttributes
    private let state = PosixMutex(State())

    /// - Parameter pixelBufferAttributes: the pictures' format and size.
    ///   `init(pixelBufferAttributes:)`.
    public init(pixelBufferAttributes: PixelBufferAttributes = PixelBufferAttributes()) {
        self.pixelBufferAttributes = pixelBufferAttributes
    }

    func attach(to item: PlayerItem?) {
        state.withLock { state in
            state.item = item
            state.reader = nil
            state.readerTime = .invalid
            state.lastCopied = .invalid
        }
    }

    /// The item time on screen at `hostTime` on the player's clock (``Player/clock``'s
    /// ``PlaybackClock/hostTime``); invalid when the item has no player. `itemTime(forHostTime:)`.
    /// - Parameter hostTime: When the next picture will be shown, on the player's clock.
    /// - Returns: The item time to ask ``copyPixelBuffer(forItemTime:)`` for.
    public func itemTime(forHostTime hostTime: MediaTime) -> MediaTime {
        guard let player = state.withLock({ $0.item })?.player else { return .invalid }
        return player.itemTime(forHostTime: hostTime)
    }

    /// True when the picture at `itemTime` is another frame than the last one copied.
    /// `hasNewPixelBuffer(forItemTime:)`.
    /// - Parameter itemTime: The item time about to be shown.
    /// - Returns: False when the picture on screen is still the right one, so a display loop
    ///   need not copy (or draw) it again.
    public func hasNewPixelBuffer(forItemTime itemTime: MediaTime) -> Bool {
        state.withLock { state in
            guard let item = state.item, item.status == .readyToPlay,
                  let shown = Self.displayTime(for: itemTime, in: item) else { return false }
            return shown != state.lastCopied
        }
    }

    /// The picture on screen at `itemTime`, and (in `itemTimeForDisplay`) the time that
    /// frame starts at. Nil when the item has no video or failed; a read error fails the
    /// item (its ``PlayerItem/error`` and failed-to-play-to-end notification).
    /// `copyPixelBuffer(forItemTime:itemTimeForDisplay:)`.
    /// - Parameters:
    ///   - itemTime: The item time to show.
    ///   - itemTimeForDisplay: Set to the start of the frame handed out (unchanged when none is).
    /// - Returns: The picture, in ``pixelBufferAttributes``' format and size.
    public func copyPixelBuffer(forItemTime itemTime: MediaTime, itemTimeForDisplay: inout MediaTime) -> PixelBuffer? {
        let result = copy(itemTime)
        if let result { itemTimeForDisplay = result.time }
        return result?.picture
    }

    /// ``copyPixelBuffer(forItemTime:itemTimeForDisplay:)`` without the display time.
    /// - Parameter itemTime: The item time to show.
    /// - Returns: The picture, in ``pixelBufferAttributes``' format and size; nil without video.
    public func copyPixelBuffer(forItemTime itemTime: MediaTime) -> PixelBuffer? {
        copy(itemTime)?.picture
    }

    private func copy(_ itemTime: MediaTime) -> (picture: PixelBuffer, time: MediaTime)? {
        let attributes = pixelBufferAttributes
        let outcome: Result<(PixelBuffer, MediaTime)?, ReelError> = state.withLock { state in
            guard let item = state.item, item.status == .readyToPlay,
                  let shown = Self.displayTime(for: itemTime, in: item) else { return .success(nil) }
            do throws(ReelError) {
                if let reader = state.reader, state.readerTime.isNumeric,
                   shown < state.readerTime || shown - state.readerTime > Self.seekDistance {
                    // A jump: the sources move there with their files and decoders kept open.
                    try reader.seekPictures(to: shown)
                } else if state.reader == nil || !state.readerTime.isNumeric {
                    state.reader?.close()
                    let size = attributes.width.flatMap { w in attributes.height.map { (width: w, height: $0) } }
                    state.reader = try CompositionPlaybackReader(
                        composition: item.composition, videoComposition: item.videoComposition, audioMix: item.audioMix,
                        size: size, startingAt: shown, readAhead: 2)
                }
                guard let reader = state.reader, let picture = try reader.picture(at: shown) else { return .success(nil) }
                state.readerTime = shown
                state.lastCopied = shown
                if attributes.pixelFormat == picture.pixelFormat { return .success((picture, shown)) }
                let converted = try PixelScaler.converted(picture, to: attributes.pixelFormat,
                                                          width: picture.width, height: picture.height)
                return .success((converted, shown))
            } catch {
                state.reader = nil
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error):
            state.withLock { $0.item }?.fail(error)
            return nil
        }
    }

    /// The start of the frame on screen at `itemTime`: the video composition's frame grid,
    /// within the item (the last frame holds at the end). Nil for an item without video.
    static func displayTime(for itemTime: MediaTime, in item: PlayerItem) -> MediaTime? {
        guard itemTime.isNumeric, !item.composition.tracks(withMediaType: .video).isEmpty else { return nil }
        let frameDuration = item.videoComposition?.frameDuration
            ?? VideoComposition(propertiesOf: item.composition).frameDuration
        let end = item.endTime
        guard let slot = TimeObserverSchedule.slot(of: max(.zero, itemTime), interval: frameDuration),
              let lastSlot = TimeObserverSchedule.slot(of: end - MediaTime(value: 1, timescale: 1_000_000), interval: frameDuration)
        else { return nil }
        return frameDuration * max(0, min(slot, lastSlot))
    }
}
