import Foundation
import ReelCore
@testable import ReelFilters
import Testing

/// The effects' exact output, pinned by checksum: every colour look and a turning cube on
/// seeded noise in each pixel format, through the table, plane and RGB kernels. The sums
/// were taken before the RGB↔YCbCr weights moved to ReelCore, so the shared conversion
/// must give the same bytes.
@Suite struct KernelChecksumTests {
    /// FNV-1a over the pixels of every plane (not the padding).
    static func checksum(_ picture: PixelBuffer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, plane) in picture.planes.enumerated() {
            picture.withPlane(index) { base, stride in
                for y in 0..<plane.height {
                    for x in 0..<plane.bytesPerRowOfPixels {
                        hash = (hash ^ UInt64(base.load(fromByteOffset: y * stride + x, as: UInt8.self))) &* 0x100_0000_01b3
                    }
                }
            }
        }
        return hash
    }

    /// A cube that turns hue: R → G → B → R, with a lift in the shadows.
    static func turningCube() throws -> CubeLUT {
        let n = 9
        var lines = ["LUT_3D_SIZE \(n)"]
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    func level(_ v: Int) -> Double { 0.05 + 0.9 * Double(v) / Double(n - 1) }
                    lines.append("\(level(b)) \(level(r)) \(level(g))")
                }
            }
        }
        return try CubeLUT(text: lines.joined(separator: "\n"))
    }

    @Test(arguments: [(PixelFormat.rgba, UInt64(13_066_339_074_632_779_186)), (.bgra, 7_519_887_062_384_096_384),
                      (.yuv420p, 6_126_971_997_810_458_476), (.nv12, 8_174_171_838_237_786_931)])
    func looksAndCubesKeepTheirBytes(format: PixelFormat, expected: UInt64) throws {
        let picture = try KernelTests.noise(width: 131, height: 77, format: format, seed: 11)
        var sums: [String] = []
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (name, values) in KernelTests.looks {
            let look = try KernelTests.look(name, values)
            let output = try PixelBuffer(width: picture.width, height: picture.height, pixelFormat: format)
            try look.apply(picture, into: output)
            let sum = Self.checksum(output)
            // The sums are BT.709's (what HD pictures get); a chain on this 77-line YCbCr picture
            // takes the look's BT.601 tables instead.
            if format.isYUV, !(look.isLumaIdentity && look.isChromaIdentity) {
                let filter = try Filter(name: name)
                for (key, value) in values { try filter.setValue(value, forKey: key) }
                let chained = try FilterChain([filter]).apply(picture)
                let standard = try PixelBuffer(width: picture.width, height: picture.height, pixelFormat: format)
                try look.apply(picture, into: standard, standard: look.standard())
                #expect(Self.checksum(chained) == Self.checksum(standard), "\(format) \(name): the chain did not use BT.601 at 77 lines")
                #expect(Self.checksum(standard) != sum, "\(format) \(name): BT.601's tables gave BT.709's bytes")
            }
            sums.append("\(name)\(values.isEmpty ? "" : "\(values.sorted { $0.key < $1.key })"): \(String(sum, radix: 16))")
            hash = (hash ^ sum) &* 0x100_0000_01b3
        }
        // The cube: the sums were taken in BT.709, which a YCbCr picture of 77 lines is not
        // (BT.601 below 720, ColorMatrix): so its BT.709 lattice is pinned, and the chain must
        // give what the BT.601 one does.
        let cube = try Self.turningCube()
        let chained = try FilterChain([Filter(cube: cube)]).apply(picture)
        var cubed = chained
        if format == .yuv420p || format == .nv12 {
            cubed = try PixelBuffer(width: picture.width, height: picture.height, pixelFormat: format)
            try cube.prepared(videoRange: true, matrix: .bt709).apply(picture, into: cubed)
            let standard = try PixelBuffer(width: picture.width, height: picture.height, pixelFormat: format)
            try cube.prepared(videoRange: true, matrix: .bt601).apply(picture, into: standard)
            #expect(Self.checksum(chained) == Self.checksum(standard), "\(format): the chain did not use BT.601 at 77 lines")
            #expect(Self.checksum(standard) != Self.checksum(cubed))
        }
        sums.append("cube: \(String(Self.checksum(cubed), radix: 16))")
        hash = (hash ^ Self.checksum(cubed)) &* 0x100_0000_01b3
        #expect(hash == expected, "\(format): \(String(hash, radix: 16))\n\(sums.joined(separator: "\n"))")
    }
}
