import ReelCore
import Testing

@Suite struct BufferTests {
    @Test func yuv420PlanesRoundUpOddSizesAndAlignRows() throws {
        let buffer = try PixelBuffer(width: 1275, height: 721, pixelFormat: .yuv420p)
        #expect(buffer.planes.count == 3)
        #expect(buffer.planes[0].width == 1275 && buffer.planes[0].height == 721)
        #expect(buffer.planes[1].width == 638 && buffer.planes[1].height == 361)
        #expect(buffer.planes.allSatisfy { $0.bytesPerRow % 64 == 0 && $0.bytesPerRow >= $0.bytesPerRowOfPixels })
    }

    @Test func nv12AndBGRALayouts() throws {
        let nv12 = try PixelBuffer(width: 64, height: 32, pixelFormat: .nv12)
        #expect(nv12.planes.map(\.bytesPerRowOfPixels) == [64, 64])
        #expect(nv12.planes.map(\.height) == [32, 16])
        let bgra = try PixelBuffer(width: 10, height: 2, pixelFormat: .bgra)
        #expect(bgra.planes.count == 1 && bgra.planes[0].bytesPerRowOfPixels == 40)
    }

    @Test func fillAndReadElements() throws {
        let buffer = try PixelBuffer(width: 4, height: 4, pixelFormat: .nv12)
        buffer.fill(planeValues: [16, 128])
        #expect(buffer.element(plane: 0, x: 3, y: 3) == [16])
        #expect(buffer.element(plane: 1, x: 1, y: 1) == [128, 128])
        #expect(buffer.element(plane: 1, x: 2, y: 0) == nil)
    }

    @Test func rejectsAbsurdSizesAndUnknownFormats() {
        #expect(throws: ReelError.self) { try PixelBuffer(width: 0, height: 10, pixelFormat: .rgba) }
        #expect(throws: ReelError.self) { try PixelBuffer(width: 100_000, height: 100_000, pixelFormat: .rgba) }
        #expect(throws: ReelError.self) { try PixelBuffer(width: 10, height: 10, pixelFormat: PixelFormat(rawValue: "p010le")) }
    }

    @Test func poolReusesMemoryInSteadyState() throws {
        let pool = try PixelBufferPool(width: 320, height: 240, pixelFormat: .yuv420p)
        for _ in 0..<100 {
            let a = pool.makePixelBuffer()
            let b = pool.makePixelBuffer()
            #expect(a.width == 320 && b.pixelFormat == .yuv420p)
        }
        #expect(pool.allocationCount == 2)
    }

    @Test func copyPixelsChecksShape() throws {
        let a = try PixelBuffer(width: 8, height: 8, pixelFormat: .rgba)
        a.fill(planeValues: [200])
        let b = try PixelBuffer(width: 8, height: 8, pixelFormat: .rgba)
        try b.copyPixels(from: a)
        #expect(b.element(plane: 0, x: 7, y: 7) == [200, 200, 200, 200])
        let c = try PixelBuffer(width: 4, height: 8, pixelFormat: .rgba)
        #expect(throws: ReelError.self) { try c.copyPixels(from: a) }
    }

    @Test func audioSamplesReadAsFloats() throws {
        let format = AudioFormat(sampleFormat: .int16, sampleRate: 48000, channelLayout: .stereo)
        let samples: [Int16] = [16384, -16384, 32767, 0]
        let bytes = samples.withUnsafeBytes { Array($0) }
        let buffer = try AudioBuffer(format: format, planes: [bytes])
        #expect(buffer.frameCount == 2)
        #expect(buffer.floatSamples(channel: 0) == [0.5, Float(32767) / 32768])
        #expect(buffer.floatSamples(channel: 1) == [-0.5, 0])
        #expect(buffer.duration == MediaTime(value: 2, timescale: 48000))
        #expect(throws: ReelError.self) { try AudioBuffer(format: format, planes: [[1, 2, 3]]) }
    }

    /// Three channels of three frames in every format a buffer holds, planar and interleaved:
    /// each channel reads back as its own floats.
    @Test func audioSamplesReadAsFloatsInEveryFormat() throws {
        let channels: [[Float]] = [[-1, -0.5, 0.25], [0, 0.5, 0.75], [0.125, -0.25, 0.5]]
        func bytes<T>(_ values: [Float], _ convert: (Float) -> T) -> [UInt8] {
            values.map(convert).withUnsafeBytes { Array($0) }
        }
        let interleaved = (0..<3).map { frame in channels.map { $0[frame] } }.flatMap { $0 }
        let encodings: [(SampleFormat, ([Float]) -> [UInt8])] = [
            (.uint8, { bytes($0, { UInt8(($0 * 128 + 128).rounded()) }) }),
            (.int16, { bytes($0, { Int16(($0 * 32768).rounded()) }) }),
            (.int16Planar, { bytes($0, { Int16(($0 * 32768).rounded()) }) }),
            (.int32, { bytes($0, { Int32(($0 * 2_147_483_648).rounded()) }) }),
            (.int32Planar, { bytes($0, { Int32(($0 * 2_147_483_648).rounded()) }) }),
            (.float, { bytes($0, { $0 }) }),
            (.floatPlanar, { bytes($0, { $0 }) }),
            (.double, { bytes($0, { Double($0) }) }),
            (.doublePlanar, { bytes($0, { Double($0) }) }),
        ]
        for (sampleFormat, encode) in encodings {
            let format = AudioFormat(sampleFormat: sampleFormat, sampleRate: 48000,
                                     channelLayout: ChannelLayout(name: "2.1", channelCount: 3))
            let planes = sampleFormat.isPlanar ? channels.map { encode($0) } : [encode(interleaved)]
            let buffer = try AudioBuffer(format: format, planes: planes)
            #expect(buffer.frameCount == 3, "\(sampleFormat)")
            for (index, expected) in channels.enumerated() {
                #expect(buffer.floatSamples(channel: index) == expected, "\(sampleFormat) channel \(index)")
            }
            #expect(buffer.floatSamples(channel: 3).isEmpty)
        }
    }

    @Test func sampleBufferCarriesTime() throws {
        let audio = try AudioBuffer.float(channels: [[0, 0.5, 1]], sampleRate: 3)
        let sample = SampleBuffer(audioBuffer: audio, presentationTime: MediaTime(value: 1, timescale: 1))
        #expect(sample.mediaType == .audio)
        #expect(sample.timeRange.end == MediaTime(value: 2, timescale: 1))
        #expect(sample.pixelBuffer == nil)
    }
}

@Suite struct OrientationKernelTests {
    /// A 3x2 gray picture whose pixel values are 10 * x + y.
    private func numbered() throws -> PixelBuffer {
        let buffer = try PixelBuffer(width: 3, height: 2, pixelFormat: .gray8)
        buffer.withUnsafeMutableBytes(ofPlane: 0) { bytes in
            for y in 0..<2 { for x in 0..<3 { bytes[y * buffer.planes[0].bytesPerRow + x] = UInt8(10 * x + y) } }
        }
        return buffer
    }

    private func rows(_ buffer: PixelBuffer) -> [[UInt8]] {
        (0..<buffer.height).map { y in (0..<buffer.width).map { x in buffer.element(plane: 0, x: x, y: y)?[0] ?? 255 } }
    }

    @Test func turnsEachWay() throws {
        let source = try numbered()
        #expect(rows(source) == [[0, 10, 20], [1, 11, 21]])
        #expect(rows(try source.oriented(.right)) == [[1, 0], [11, 10], [21, 20]])
        #expect(rows(try source.oriented(.left)) == [[20, 21], [10, 11], [0, 1]])
        #expect(rows(try source.oriented(.down)) == [[21, 11, 1], [20, 10, 0]])
        #expect(rows(try source.oriented(.upMirrored)) == [[20, 10, 0], [21, 11, 1]])
        #expect(rows(try source.oriented(.up)) == rows(source))
    }

    @Test func turnsChromaPlanesToo() throws {
        let source = try PixelBuffer(width: 4, height: 2, pixelFormat: .nv12)
        source.fill(planeValues: [16, 128])
        source.withUnsafeMutableBytes(ofPlane: 1) { bytes in // the top-left UV pair
            bytes[0] = 1
            bytes[1] = 2
        }
        let turned = try source.oriented(.right)
        #expect(turned.width == 2 && turned.height == 4)
        #expect(turned.element(plane: 1, x: 0, y: 0) == [1, 2])
        #expect(throws: ReelError.self) { try PixelBuffer(width: 4, height: 2, pixelFormat: .yuyv422).oriented(.left) }
    }
}
