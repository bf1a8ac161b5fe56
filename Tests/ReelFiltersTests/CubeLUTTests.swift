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

    @Test func eachAxisHasItsOwnDomain() throws {
        // An identity table over green 0...0.5: green 0.25 sits halfway up the cube, so it
        // comes out at 0.5; red and blue, over 0...1, stay.
        var lines = ["LUT_3D_SIZE 2", "DOMAIN_MIN 0 0 0", "DOMAIN_MAX 1 0.5 1"]
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { lines.append("\(r) \(g) \(b)") } } }
        let cube = try CubeLUT(text: lines.joined(separator: "\n"))
        let picture = try PixelBuffer(width: 1, height: 1, pixelFormat: .rgba)
        picture.fillRect(x: 0, y: 0, width: 1, height: 1, rgba: (64, 64, 64, 255))
        let output = try FilterChain([Filter(cube: cube)]).apply(picture)
        #expect(output.element(plane: 0, x: 0, y: 0) == [64, 128, 64, 255])
    }

    /// A 4:2:0 picture whose blocks are each one in-gamut colour with its luma varied per
    /// pixel, the colours spread over the cube; odd sizes leave part blocks at the edges.
    private func ycbcrPicture(_ format: PixelFormat, width: Int, height: Int) throws -> PixelBuffer {
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: format)
        var noise = KernelTests.Noise(state: 11)
        func sample(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(noise.next()) % range.count }
        let interleaved = format == .nv12
        for by in 0..<(height + 1) / 2 {
            for bx in 0..<(width + 1) / 2 {
                // Mid-range chroma around a mid-range luma stays inside RGB's cube.
                let cb = UInt8(sample(100...156)), cr = UInt8(sample(100...156))
                let base = sample(70...150)
                picture.withMutablePlane(0) { luma, stride in
                    for y in 2 * by..<min(2 * by + 2, height) {
                        for x in 2 * bx..<min(2 * bx + 2, width) {
                            luma.storeBytes(of: UInt8(base + (x + 3 * y) % 4 * 6), toByteOffset: y * stride + x, as: UInt8.self)
                        }
                    }
                }
                picture.withMutablePlane(1) { chroma, stride in
                    chroma.storeBytes(of: cb, toByteOffset: by * stride + (interleaved ? 2 * bx : bx), as: UInt8.self)
                    if interleaved { chroma.storeBytes(of: cr, toByteOffset: by * stride + 2 * bx + 1, as: UInt8.self) }
                }
                if !interleaved {
                    picture.withMutablePlane(2) { chroma, stride in
                        chroma.storeBytes(of: cr, toByteOffset: by * stride + bx, as: UInt8.self)
                    }
                }
            }
        }
        return picture
    }

    @Test(arguments: [PixelFormat.yuv420p, .nv12])
    func identityCubeKeepsYCbCrPictures(format: PixelFormat) throws {
        let cube = try CubeLUT(text: CubeLUT.identityText(size: 33))
        let picture = try ycbcrPicture(format, width: 67, height: 37)
        let output = try FilterChain([Filter(cube: cube)]).apply(picture)
        for plane in 0..<picture.planes.count {
            for y in 0..<picture.planes[plane].height {
                for x in 0..<picture.planes[plane].width {
                    let before = try #require(picture.element(plane: plane, x: x, y: y))
                    let after = try #require(output.element(plane: plane, x: x, y: y))
                    for (a, b) in zip(before, after) {
                        #expect(abs(Int(a) - Int(b)) <= 1, "plane \(plane) at \(x), \(y): \(before) became \(after)")
                    }
                }
            }
        }
    }

    /// In the picture's own matrix: BT.601 below 720 lines (4 here), BT.709 from 720 up. (By
    /// BT.709 at 4 lines, the teal's swap came out 6 levels off on G and B.)
    @Test(arguments: [PixelFormat.yuv420p, .nv12], [4, 720])
    func knownMappingMapsYCbCrColours(format: PixelFormat, height: Int) throws {
        // Swap red and blue: a block of (R, G, B) comes out as the YCbCr of (B, G, R).
        var lines = ["LUT_3D_SIZE 2"]
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { lines.append("\(b) \(g) \(r)") } } }
        let cube = try CubeLUT(text: lines.joined(separator: "\n"))
        let (kr, kb) = height >= 720 ? (0.2126, 0.0722) : (0.299, 0.114)
        func ycbcr(_ r: Double, _ g: Double, _ b: Double) -> [Int] {
            let luma = kr * r + (1 - kr - kb) * g + kb * b
            let y = 16 + luma * 219 / 255
            let cb = 128 + (b - luma) / (2 * (1 - kb)) * 224 / 255
            let cr = 128 + (r - luma) / (2 * (1 - kr)) * 224 / 255
            return [y, cb, cr].map { Int($0.rounded()) }
        }
        let picture = try PixelBuffer(width: 6, height: height, pixelFormat: format)
        let colours: [(Double, Double, Double)] = [(200, 100, 50), (30, 160, 220), (128, 128, 128)]
        for (block, colour) in colours.enumerated() {
            let (y, cb, cr) = { (v: [Int]) in (v[0], v[1], v[2]) }(ycbcr(colour.0, colour.1, colour.2))
            for row in 0..<height {
                picture.withMutablePlane(0) { luma, stride in
                    for x in 2 * block..<2 * block + 2 {
                        luma.storeBytes(of: UInt8(y), toByteOffset: row * stride + x, as: UInt8.self)
                    }
                }
            }
            for row in 0..<height / 2 {
                if format == .nv12 {
                    picture.withMutablePlane(1) { chroma, stride in
                        chroma.storeBytes(of: UInt8(cb), toByteOffset: row * stride + 2 * block, as: UInt8.self)
                        chroma.storeBytes(of: UInt8(cr), toByteOffset: row * stride + 2 * block + 1, as: UInt8.self)
                    }
                } else {
                    picture.withMutablePlane(1) { $0.storeBytes(of: UInt8(cb), toByteOffset: row * $1 + block, as: UInt8.self) }
                    picture.withMutablePlane(2) { $0.storeBytes(of: UInt8(cr), toByteOffset: row * $1 + block, as: UInt8.self) }
                }
            }
        }
        let output = try FilterChain([Filter(cube: cube)]).apply(picture)
        for (block, colour) in colours.enumerated() {
            let expected = ycbcr(colour.2, colour.1, colour.0)
            func samples(_ plane: Int, _ x: Int) throws -> [Int] {
                try #require(output.element(plane: plane, x: x, y: 0)).map(Int.init)
            }
            let chroma = format == .nv12 ? try samples(1, block) : try samples(1, block) + samples(2, block)
            let got = try samples(0, 2 * block) + chroma
            for (a, b) in zip(got, expected) {
                #expect(abs(a - b) <= 2, "block \(block): \(got), not \(expected)")
            }
        }
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
