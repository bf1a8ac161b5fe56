public import ReelCore
import Foundation

/// Pictures and sounds whose content can be checked after a round trip.
public enum TestPatterns {
    /// Bits a frame index is written with: 10 blocks, so 1024 distinct frames.
    public static let indexBits = 10

    /// A yuv420p picture whose top row of blocks spells `index` in binary (white = 1),
    /// on a mid-grey background. Blocks are 32×32 so a lossy codec keeps them apart.
    public static func indexedFrame(_ index: Int, width: Int = 320, height: Int = 240,
                                    pool: PixelBufferPool? = nil) throws(ReelError) -> PixelBuffer {
        let buffer: PixelBuffer
        if let pool { buffer = pool.makePixelBuffer() } else {
            buffer = try PixelBuffer(width: width, height: height, pixelFormat: .yuv420p)
        }
        buffer.fill(planeValues: [128, 128, 128])
        let block = 32
        buffer.withUnsafeMutableBytes(ofPlane: 0) { luma in
            let stride = buffer.planes[0].bytesPerRow
            for bit in 0..<indexBits where (index >> bit) & 1 == 1 {
                for y in 0..<block {
                    for x in (bit * block)..<((bit + 1) * block) where x < width {
                        luma[y * stride + x] = 235
                    }
                }
            }
            for bit in 0..<indexBits where (index >> bit) & 1 == 0 {
                for y in 0..<block {
                    for x in (bit * block)..<((bit + 1) * block) where x < width {
                        luma[y * stride + x] = 16
                    }
                }
            }
        }
        return buffer
    }

    /// Reads back the index written by ``indexedFrame(_:width:height:pool:)`` from the block
    /// centres of a yuv420p, gray or RGB-family picture.
    public static func readIndex(_ buffer: PixelBuffer) -> Int {
        var index = 0
        for bit in 0..<indexBits {
            let sample = buffer.element(plane: 0, x: bit * 32 + 16, y: 16) ?? [0]
            let level = sample.count >= 3 ? (Int(sample[0]) + Int(sample[1]) + Int(sample[2])) / 3 : Int(sample[0])
            if level > 128 { index |= 1 << bit }
        }
        return index
    }

    /// `seconds` of a sine at `frequency` Hz, 32-bit float planar, `channels` copies.
    public static func sine(frequency: Double, seconds: Double, sampleRate: Int = 48000, channels: Int = 1,
                            amplitude: Float = 0.5) throws(ReelError) -> AudioBuffer {
        let count = Int(seconds * Double(sampleRate))
        let samples = (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
        return try AudioBuffer.float(channels: Array(repeating: samples, count: channels), sampleRate: sampleRate)
    }

    /// The dominant frequency of `samples`, from zero crossings with linear interpolation.
    public static func frequency(of samples: [Float], sampleRate: Int) -> Double {
        var crossings: [Double] = []
        for i in 1..<max(samples.count, 1) where samples[i - 1] < 0 && samples[i] >= 0 {
            let fraction = Double(-samples[i - 1]) / Double(samples[i] - samples[i - 1])
            crossings.append(Double(i - 1) + fraction)
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(sampleRate) / (last - first)
    }
}
