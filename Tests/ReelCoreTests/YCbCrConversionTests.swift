@testable import ReelCore
import Testing

/// Converting YCbCr between BT.709 and BT.601 in place: every colour of RGB's cube comes out
/// as the RGB round trip (and libswscale's cascade through RGB) would give it.
@Suite struct YCbCrConversionTests {
    /// A 4:2:0 picture `width` by `height` of one colour per 2x2 block: `colour(blockX, blockY)`.
    private struct Picture {
        var luma: [UInt8], cb: [UInt8], cr: [UInt8]
        let width: Int, height: Int

        init(width: Int, height: Int, colour: (Int, Int) -> (UInt8, UInt8, UInt8)) {
            (self.width, self.height) = (width, height)
            let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
            luma = [UInt8](repeating: 0, count: width * height)
            cb = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
            cr = cb
            for y in 0..<height {
                for x in 0..<width { luma[y * width + x] = colour(x / 2, y / 2).0 }
            }
            for y in 0..<chromaHeight {
                for x in 0..<chromaWidth { (_, cb[y * chromaWidth + x], cr[y * chromaWidth + x]) = colour(x, y) }
            }
        }

        mutating func convert(_ conversion: YCbCrConversion) {
            let (width, height) = (width, height)
            luma.withUnsafeMutableBufferPointer { luma in
                cb.withUnsafeMutableBufferPointer { cb in
                    cr.withUnsafeMutableBufferPointer { cr in
                        guard let y = luma.baseAddress, let u = cb.baseAddress, let v = cr.baseAddress else { return }
                        conversion.apply(
                            planes: (y, u, v), strides: (width, (width + 1) / 2, (width + 1) / 2),
                            width: width, height: height, chromaShift: (1, 1))
                    }
                }
            }
        }

        func sample(blockX: Int, blockY: Int) -> (UInt8, UInt8, UInt8) {
            let chromaWidth = (width + 1) / 2
            return (luma[2 * blockY * width + 2 * blockX], cb[blockY * chromaWidth + blockX], cr[blockY * chromaWidth + blockX])
        }
    }

    @Test func theSameMatrixIsNoConversion() {
        #expect(YCbCrConversion(from: .bt709, to: .bt709) == nil)
        #expect(YCbCrConversion(from: .bt601, to: .bt601) == nil)
    }

    /// 9^3 colours spread over RGB's cube, each one 2x2 block: each comes out within a level
    /// of the colour written in the other matrix, and grey stays exactly grey.
    @Test(arguments: [(ColorMatrix.bt709, ColorMatrix.bt601), (.bt601, .bt709)])
    func everyColourComesOutAsTheOtherMatrixWritesIt(from source: ColorMatrix, to target: ColorMatrix) throws {
        let conversion = try #require(YCbCrConversion(from: source, to: target))
        let steps = 9
        func rgb(_ block: Int) -> (Double, Double, Double) {
            (Double(block % steps) / 8, Double(block / steps % steps) / 8, Double(block / (steps * steps)) / 8)
        }
        let blocks = steps * steps * steps
        // One row of blocks, the last a lone column (odd width) to cover the edge.
        var picture = Picture(width: 2 * blocks - 1, height: 3) { x, _ in
            let (r, g, b) = rgb(x)
            return YCbCr.videoRange(red: r, green: g, blue: b, matrix: source)
        }
        picture.convert(conversion)
        var worst = 0
        for block in 0..<blocks {
            let (r, g, b) = rgb(block)
            let want = YCbCr.videoRange(red: r, green: g, blue: b, matrix: target)
            for row in 0..<2 {
                let got = picture.sample(blockX: block, blockY: row)
                let off = max(abs(Int(got.0) - Int(want.0)), abs(Int(got.1) - Int(want.1)), abs(Int(got.2) - Int(want.2)))
                worst = max(worst, off)
                // Grey is the same samples in both (the matrices' luma weights each add up to 1).
                let written = YCbCr.videoRange(red: r, green: g, blue: b, matrix: source)
                if r == g, g == b { #expect(got == written, "grey \(r): \(got) from \(written)") }
            }
        }
        #expect(worst <= 1, "worst \(worst) levels from \(source) to \(target)")
    }

    /// The teal the colour tests use, (48, 160, 192): BT.709's samples become BT.601's, and back.
    @Test func tealBetweenTheMatrices() throws {
        let hd = YCbCr.videoRange(red: 48 / 255, green: 160 / 255, blue: 192 / 255, matrix: .bt709)
        let sd = YCbCr.videoRange(red: 48 / 255, green: 160 / 255, blue: 192 / 255, matrix: .bt601)
        #expect(hd != sd)
        var picture = Picture(width: 4, height: 4) { _, _ in hd }
        picture.convert(try #require(YCbCrConversion(from: .bt709, to: .bt601)))
        func near(_ samples: [UInt8], _ value: UInt8) -> Bool { samples.allSatisfy { abs(Int($0) - Int(value)) <= 1 } }
        #expect(
            near(picture.luma, sd.0) && near(picture.cb, sd.1) && near(picture.cr, sd.2),
            "\(picture.luma) \(picture.cb) \(picture.cr) for \(sd)")
        picture.convert(try #require(YCbCrConversion(from: .bt601, to: .bt709)))
        #expect(
            near(picture.luma, hd.0) && near(picture.cb, hd.1) && near(picture.cr, hd.2),
            "\(picture.luma) \(picture.cb) \(picture.cr) for \(hd)")
    }

    /// Bigger than a band (ParallelRows splits from 64 rows): every row is converted once.
    @Test func everyRowOfALargePictureIsConvertedOnce() throws {
        let red = YCbCr.videoRange(red: 1, green: 0, blue: 0, matrix: .bt709)
        let want = YCbCr.videoRange(red: 1, green: 0, blue: 0, matrix: .bt601)
        var picture = Picture(width: 64, height: 361) { _, _ in red }
        picture.convert(try #require(YCbCrConversion(from: .bt709, to: .bt601)))
        #expect(Set(picture.luma).count == 1 && Set(picture.cb).count == 1 && Set(picture.cr).count == 1)
        let got = picture.sample(blockX: 5, blockY: 180)
        #expect(
            abs(Int(got.0) - Int(want.0)) <= 1 && abs(Int(got.1) - Int(want.1)) <= 1 && abs(Int(got.2) - Int(want.2)) <= 1,
            "\(got) for \(want)")
    }
    /// 4:4:4 (no subsampling): each sample converts by its own chroma.
    @Test func fullChromaConvertsEachSampleByItsOwn() throws {
        let colours: [(Double, Double, Double)] = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0.2, 0.6, 0.75), (1, 1, 1)]
        let source = colours.map { YCbCr.videoRange(red: $0.0, green: $0.1, blue: $0.2, matrix: .bt709) }
        var (luma, cb, cr) = (source.map(\.0), source.map(\.1), source.map(\.2))
        let conversion = try #require(YCbCrConversion(from: .bt709, to: .bt601))
        luma.withUnsafeMutableBufferPointer { y in
            cb.withUnsafeMutableBufferPointer { u in
                cr.withUnsafeMutableBufferPointer { v in
                    guard let y = y.baseAddress, let u = u.baseAddress, let v = v.baseAddress else { return }
                    conversion.apply(planes: (y, u, v), strides: (5, 5, 5), width: 5, height: 1, chromaShift: (0, 0))
                }
            }
        }
        for (index, colour) in colours.enumerated() {
            let want = YCbCr.videoRange(red: colour.0, green: colour.1, blue: colour.2, matrix: .bt601)
            let got = (luma[index], cb[index], cr[index])
            #expect(
                abs(Int(got.0) - Int(want.0)) <= 1 && abs(Int(got.1) - Int(want.1)) <= 1 && abs(Int(got.2) - Int(want.2)) <= 1,
                "\(colour): \(got) for \(want)")
        }
    }
}
