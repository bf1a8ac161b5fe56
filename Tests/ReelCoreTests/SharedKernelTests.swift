import Foundation
@testable import ReelCore
import Testing

/// The shared kernels: the BT.709 weights against the standard's coefficients, the 8-bit
/// round trip, and the row bands.
@Suite struct SharedKernelTests {
    @Test func fixedPointWeightsAreTheStandardsCoefficients() {
        let (kr, kb) = (0.2126, 0.0722), kg = 1 - kr - kb
        func fixed(_ value: Double) -> Int32 { Int32((value * 65_536).rounded()) }
        let luma = 219.0 / 255, chroma = 224.0 / 255
        #expect(YCbCr.forward == [
            [fixed(kr * luma), fixed(kg * luma), fixed(kb * luma)],
            [fixed(-kr / (2 * (1 - kb)) * chroma), fixed(-kg / (2 * (1 - kb)) * chroma), fixed(0.5 * chroma)],
            [fixed(0.5 * chroma), fixed(-kg / (2 * (1 - kr)) * chroma), fixed(-kb / (2 * (1 - kr)) * chroma)],
        ])
        #expect(YCbCr.inverse == [
            [fixed(1 / luma), 0, fixed(2 * (1 - kr) / chroma)],
            [fixed(1 / luma), fixed(-2 * (1 - kb) * kb / kg / chroma), fixed(-2 * (1 - kr) * kr / kg / chroma)],
            [fixed(1 / luma), fixed(2 * (1 - kb) / chroma), 0],
        ])
    }

    /// The weights by matrix: BT.709's are the shared ones, BT.601's its own coefficients.
    @Test func weightsByMatrix() {
        #expect(YCbCr.forward(.bt709) == YCbCr.forward)
        #expect(YCbCr.inverse(.bt709) == YCbCr.inverse)
        let (kr, kb) = (0.299, 0.114), kg = 1 - kr - kb
        func fixed(_ value: Double) -> Int32 { Int32((value * 65_536).rounded()) }
        let luma = 219.0 / 255, chroma = 224.0 / 255
        #expect(YCbCr.forward(.bt601)[0] == [fixed(kr * luma), fixed(kg * luma), fixed(kb * luma)])
        #expect(YCbCr.inverse(.bt601)[1] == [fixed(1 / luma), fixed(-2 * (1 - kb) * kb / kg / chroma), fixed(-2 * (1 - kr) * kr / kg / chroma)])
    }

    @Test func eightBitConversionRoundTripsWithinALevel() {
        var worst: Int32 = 0
        for r in stride(from: Int32(0), through: 255, by: 5) {
            for g in stride(from: Int32(0), through: 255, by: 5) {
                for b in stride(from: Int32(0), through: 255, by: 5) {
                    let (y, cb, cr) = YCbCr.fromRGB(r, g, b)
                    // The exact conversion of the same colour lands on the same bytes, or one off.
                    let exact = YCbCr.videoRange(red: Double(r) / 255, green: Double(g) / 255, blue: Double(b) / 255, matrix: .bt709)
                    #expect(abs(y - Int32(exact.0)) <= 1 && abs(cb - Int32(exact.1)) <= 1 && abs(cr - Int32(exact.2)) <= 1)
                    let back = YCbCr.toRGB(y, cb, cr)
                    worst = max(worst, abs(Int32(back.0) - r), abs(Int32(back.1) - g), abs(Int32(back.2) - b))
                }
            }
        }
        // 8-bit video range has fewer levels than full-range RGB: a couple of levels are lost.
        #expect(worst <= 2, "\(worst)")
        #expect(YCbCr.fromRGB(0, 0, 0) == (16, 128, 128) && YCbCr.fromRGB(255, 255, 255) == (235, 128, 128))
        #expect(YCbCr.videoRange(red: 1, green: 1, blue: 0, matrix: .bt709) == (219, 16, 138))
    }

    @Test(arguments: [0, 1, 63, 64, 65, 1081])
    func bandsCoverEveryRowOnce(rows: Int) {
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(rows, 1))
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        ParallelRows.run(rows: rows) { band in
            for row in band { counts[row] += 1 }
        }
        #expect(counts.prefix(rows).allSatisfy { $0 == 1 })
    }
}
