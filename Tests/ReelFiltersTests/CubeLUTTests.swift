import Foundation
import ReelCore
import ReelFilters
import Testing

@Suite struct CubeLUTTests {
    @Test(arguments: [2, 17, 33])
    func identityCubeIsLossless(size: Int) throws {
        let cube = try CubeLUT(text: CubeLUT.identityText(size: size))
        let picture = try PixelBuffer(width: 256, height: 3, pixelFormat: .rgba)
        picture.withMutablePlane(0) { base, stride in
            for x in 0..<256 {
                for y in 0..<3 {
                    let p = base + y * stride + 4 * x
                    p.storeBytes(of: UInt8(x), toByteOffset: 0, as: UInt8.self)
                    p.storeBytes(of: UInt8((x * 7 + y * 50) % 256), toByteOffset: 1, as: UInt8.self)
                    p.storeBytes(of: UInt8(255 - x), toByteOffset: 2, as: UInt8.self)
                    p.storeBytes(of: UInt8(255), toByteOffset: 3, as: UInt8.self)
                }
            }
        }
        let output = try FilterChain([Filter(cube: cube)]).apply(picture)
        for y in 0..<3 {
            for x in 0..<256 {
                #expect(output.element(plane: 0, x: x, y: y) == picture.element(plane: 0, x: x, y: y), "at \(x), \(y)")
            }
        }
    }

    @Test func knownMappingMapsKnownColours() throws {
        // Swap red and blue, halve green.
        var lines = ["LUT_3D_SIZE 2"]
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { lines.append("\(b) \(Double(g) / 2) \(r)") } } }
        let cube = try CubeLUT(text: lines.joined(separator: "\n"))
        let picture = try PixelBuffer(width: 4, height: 1, pixelFormat: .rgba)
        picture.fillRect(x: 0, y: 0, width: 1, height: 1, rgba: (255, 0, 0, 255))
        picture.fillRect(x: 1, y: 0, width: 1, height: 1, rgba: (0, 255, 0, 255))
        picture.fillRect(x: 2, y: 0, width: 1, height: 1, rgba: (0, 0, 255, 255))
        picture.fillRect(x: 3, y: 0, width: 1, height: 1, rgba: (200, 100, 50, 255))
        let output = try FilterChain([Filter(cube: cube)]).apply(picture)
        #expect(output.element(plane: 0, x: 0, y: 0) == [0, 0, 255, 255])
        #expect(output.element(plane: 0, x: 1, y: 0) == [0, 128, 0, 255])
        #expect(output.element(plane: 0, x: 2, y: 0) == [255, 0, 0, 255])
        #expect(output.element(plane: 0, x: 3, y: 0) == [50, 50, 200, 255])
    }

    @Test(arguments: [
        ("LUT_3D_SIZE 1\n0 0 0\n", "line 1: LUT_3D_SIZE"),
        ("LUT_3D_SIZE two\n", "line 1: LUT_3D_SIZE wants one whole number"),
        ("# a look\nLUT_3D_SIZE 2\n0 0 0\n1 0 0\n", "2 rows, but LUT_3D_SIZE 2 needs 8"),
        ("LUT_3D_SIZE 2\n0 0 0\n1 zero 0\n", "line 3: a table row is three numbers, not '1 zero 0'"),
        ("LUT_3D_SIZE 2\n0 0\n", "line 2: a table row is three numbers"),
        ("0 0 0\n", "line 1: the table starts before LUT_3D_SIZE"),
        ("TITLE \"x\"\n", "no LUT_3D_SIZE line"),
        ("LUT_3D_SIZE 2\nCOLOUR 1\n", "line 2: unknown keyword 'COLOUR'"),
    ])
    func malformedCubesNameTheLine(text: String, message: String) {
        #expect {
            try CubeLUT(text: text)
        } throws: { error in
            (error as? ReelError)?.message.contains(message) == true
        }
    }

    @Test func fileErrorsNameTheFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).cube")
        try "LUT_3D_SIZE 2\n0 0 0\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try CubeLUT(contentsOf: url)
        } throws: { error in
            (error as? ReelError)?.description.hasPrefix("\(url.path): line ") == true
        }
    }
}
