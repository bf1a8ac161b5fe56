import Dispatch
import Foundation
import ReelCore

/// The frames of `virtual:camera`: colour bars that drift, a box that crosses the
/// picture, the frame counter in binary (16 blocks along the top, white = 1), and a
/// white flash on the first frame of every second. Frame `i` has the time `i / fps`
/// from the session's start, on the device's own clock.
enum VirtualCamera {
    static let counterBits = 16
    static let blockSize = 16

    static func render(frame index: Int64, rate: Double, into picture: PixelBuffer) {
        let width = picture.width, height = picture.height
        let flash = index % Int64(max(1, rate.rounded())) == 0
        if flash {
            picture.fill(planeValues: [235, 128, 128])
        } else {
            let bars: [(UInt8, UInt8, UInt8)] = [(180, 44, 136), (168, 136, 44), (145, 54, 34), (133, 63, 52),
                                                 (63, 193, 204), (51, 202, 222), (28, 212, 120)]
            let shift = Int(index * 4) % width
            let barWidth = max(1, width / bars.count)
            picture.withMutablePlane(0) { base, stride in
                for y in 0..<height {
                    let row = base + y * stride
                    for (n, bar) in bars.enumerated() {
                        let start = (n * barWidth + shift) % width
                        let run = min(barWidth, width - start)
                        (row + start).initializeMemory(as: UInt8.self, repeating: bar.0, count: run)
                        if run < barWidth { row.initializeMemory(as: UInt8.self, repeating: bar.0, count: barWidth - run) }
                    }
                }
            }
            for plane in 1...2 {
                picture.withMutablePlane(plane) { base, stride in
                    let w = picture.planes[plane].width
                    for y in 0..<picture.planes[plane].height {
                        let row = base + y * stride
                        for (n, bar) in bars.enumerated() {
                            let start = (n * barWidth / 2 + shift / 2) % w
                            let run = min(barWidth / 2, w - start)
                            let value = plane == 1 ? bar.1 : bar.2
                            (row + start).initializeMemory(as: UInt8.self, repeating: value, count: max(0, run))
                            if run < barWidth / 2 { row.initializeMemory(as: UInt8.self, repeating: value, count: barWidth / 2 - run) }
                        }
                    }
                }
            }
            // A box that crosses the picture every 4 s.
            let boxSize = height / 5
            let x = Int(Double(index) / (rate * 4) * Double(width - boxSize)) % max(1, width - boxSize)
            picture.withMutablePlane(0) { base, stride in
                for y in (height / 2 - boxSize / 2)..<(height / 2 + boxSize / 2) {
                    (base + y * stride + x).initializeMemory(as: UInt8.self, repeating: 230, count: boxSize)
                }
            }
        }
        // The counter, always drawn, so every frame says which it is.
        picture.withMutablePlane(0) { base, stride in
            for bit in 0..<counterBits where (bit + 1) * blockSize <= width {
                let value: UInt8 = (index >> bit) & 1 == 1 ? 235 : 16
                for y in 0..<blockSize {
                    (base + y * stride + bit * blockSize).initializeMemory(as: UInt8.self, repeating: value, count: blockSize)
                }
            }
        }
    }

    /// Reads the counter back from a picture of the camera (after encoding too).
    static func readCounter(_ picture: PixelBuffer) -> Int {
        var value = 0
        for bit in 0..<counterBits where (bit + 1) * blockSize <= picture.width {
            if (picture.element(plane: 0, x: bit * blockSize + blockSize / 2, y: blockSize / 2)?[0] ?? 0) > 128 {
                value |= 1 << bit
            }
        }
        return value
    }
}

/// The sound of `virtual:microphone`: silence with a 10 ms 1 kHz click at every whole second.
enum VirtualMicrophone {
    static let sampleRate = 48000

    /// `count` mono samples starting at sample `start` of the session.
    static func samples(start: Int64, count: Int) -> [Float] {
        (0..<count).map { i in
            let position = start + Int64(i)
            let inSecond = position % Int64(sampleRate)
            guard inSecond < 480 else { return 0 }
            return 0.8 * Float(sin(2 * Double.pi * 1000 * Double(inSecond) / Double(sampleRate)))
        }
    }
}
