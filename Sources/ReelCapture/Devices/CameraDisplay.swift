import Foundation
import ReelAsset
import ReelCore

/// The camera's on-screen display, drawn over the optics: the frame counter in binary
/// along the top and an `HH:MM:SS:FF` timecode at the bottom left.
enum CameraDisplay {
    private static let glyphCache = PosixMutex<[Int: Glyphs]>([:])

    /// The characters of a timecode as coverage masks, drawn once per size with the system font.
    struct Glyphs {
        let width: Int
        let height: Int
        /// One mask per character of "0123456789:", `width`×`height` each.
        let masks: [[UInt8]]
    }

    static func draw(counter index: Int64, rate: Double, into picture: PixelBuffer) {
        picture.withMutablePlane(0) { base, stride in
            for bit in 0..<VirtualCamera.counterBits where (bit + 1) * VirtualCamera.blockSize <= picture.width {
                let value: UInt8 = (index >> bit) & 1 == 1 ? 235 : 16
                for y in 0..<min(VirtualCamera.blockSize, picture.height) {
                    (base + y * stride + bit * VirtualCamera.blockSize)
                        .initializeMemory(as: UInt8.self, repeating: value, count: VirtualCamera.blockSize)
                }
            }
        }
        let strip = min(VirtualCamera.counterBits * VirtualCamera.blockSize, picture.width)
        neutralizeChroma(left: 0, top: 0, width: strip, height: VirtualCamera.blockSize, in: picture)
        drawTimecode(timecode(index, rate: rate), into: picture)
    }

    /// Greys the colour under a display element, so that white reads as white on any scene
    /// (the luma alone over a saturated bar comes out tinted, and too dark to read back).
    private static func neutralizeChroma(left: Int, top: Int, width: Int, height: Int, in picture: PixelBuffer) {
        guard picture.pixelFormat == .yuv420p, picture.planes.count == 3 else { return }
        let plane = picture.planes[1]
        let columns = left / 2..<min(plane.width, (left + width + 1) / 2)
        let rows = top / 2..<min(plane.height, (top + height + 1) / 2)
        guard !columns.isEmpty, !rows.isEmpty else { return }
        for index in 1...2 {
            picture.withMutablePlane(index) { base, stride in
                for y in rows {
                    (base + y * stride + columns.lowerBound).initializeMemory(as: UInt8.self, repeating: 128,
                                                                             count: columns.count)
                }
            }
        }
    }

    static func timecode(_ index: Int64, rate: Double) -> String {
        let fps = Int64(max(1, rate.rounded()))
        let seconds = index / fps, frames = index % fps
        let parts = [seconds / 3600, seconds / 60 % 60, seconds % 60, frames]
        return parts.map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }

    private static func drawTimecode(_ text: String, into picture: PixelBuffer) {
        let size = max(10, picture.height / 24)
        guard let glyphs = glyphs(size: size) else { return }
        let margin = size / 2
        let top = picture.height - glyphs.height - margin
        guard top > VirtualCamera.blockSize, margin + glyphs.width * text.count < picture.width else { return }
        picture.withMutablePlane(0) { raw, stride in
            let base = raw.assumingMemoryBound(to: UInt8.self)
            for (n, character) in text.enumerated() {
                let index = character == ":" ? 10 : Int(character.asciiValue ?? 48) - 48
                guard glyphs.masks.indices.contains(index) else { continue }
                let mask = glyphs.masks[index], left = margin + n * glyphs.width
                for y in 0..<glyphs.height {
                    let line = base + (top + y) * stride + left
                    for x in 0..<glyphs.width {
                        // A dark backing, then the white character over it, so it reads on any scene.
                        let coverage = Int(mask[y * glyphs.width + x])
                        let dimmed = (Int(line[x]) * 2 + 16) / 3
                        line[x] = UInt8((dimmed * (255 - coverage) + 235 * coverage) / 255)
                    }
                }
            }
        }
        neutralizeChroma(left: margin, top: top, width: glyphs.width * text.count, height: glyphs.height, in: picture)
    }

    private static func glyphs(size: Int) -> Glyphs? {
        glyphCache.withLock { (glyphCache) -> Glyphs? in
            if let cached = glyphCache[size] { return cached }
            let width = size * 3 / 5 + 2, height = size + size / 3
            var masks: [[UInt8]] = []
            for character in "0123456789:" {
                guard let image = try? TextImage.render(String(character), width: width, height: height, fontSize: size,
                                                        x: 1, y: size / 8) else { return nil }
                var mask = [UInt8](repeating: 0, count: width * height)
                image.withPlane(0) { raw, stride in
                    let base = raw.assumingMemoryBound(to: UInt8.self)
                    for y in 0..<height {
                        for x in 0..<width { mask[y * width + x] = base[y * stride + x * 4 + 3] }
                    }
                }
                masks.append(mask)
            }
            let glyphs = Glyphs(width: width, height: height, masks: masks)
            glyphCache[size] = glyphs
            return glyphs
        }
    }
}
