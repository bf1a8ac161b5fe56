import Foundation
import ReelCore
@testable import ReelFilters
import Testing

/// The SIMD kernels against the tables they replace, on noise, at odd sizes (so rows have
/// padding and vector loops leave tails).
@Suite struct KernelTests {
    /// Deterministic noise: the same pictures on every run.
    struct Noise {
        var state: UInt64
        mutating func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 7) throws -> PixelBuffer {
        let picture = try PixelBuffer(width: width, height: height, pixelFormat: format)
        var noise = Noise(state: seed)
        for (index, plane) in picture.planes.enumerated() {
            picture.withMutablePlane(index) { base, stride in
                for y in 0..<plane.height {
                    for x in 0..<plane.bytesPerRowOfPixels {
                        base.storeBytes(of: noise.next(), toByteOffset: y * stride + x, as: UInt8.self)
                    }
                }
            }
        }
        return picture
    }

    /// Each colour effect at its defaults and at settings that push its parameters.
    static let looks: [(String, [String: Double])] = EffectTests.colourEffects.map { ($0, [:]) } + [
        ("ColorControls", ["brightness": 0.1, "contrast": 1.4, "saturation": 1.6]),
        ("ColorControls", ["brightness": -0.3, "contrast": 3.5, "saturation": 0]),
        ("ExposureAdjust", ["ev": -2]),
        ("ExposureAdjust", ["ev": 4]),
        ("SepiaTone", ["intensity": 0.4]),
    ]

    static func look(_ name: String, _ values: [String: Double]) throws -> ColorLook {
        try #require(FilterCatalog.look(named: name, values: values))
    }

    @Test func straightLinesAreFoundOnlyWhereTheTablesAreStraight() throws {
        #expect(try Self.look("PhotoEffectChrome", [:]).lumaLine != nil)
        #expect(try Self.look("PhotoEffectProcess", [:]).chromaPlanes != nil)
        #expect(try Self.look("SepiaTone", [:]).chromaPlanes != nil)
        #expect(try Self.look("PhotoEffectNoir", [:]).lumaLine == nil)
        #expect(try Self.look("PhotoEffectTonal", [:]).lumaLine == nil)
        // A chain whose clamps bend the chroma map is not a plane: it keeps the tables.
        let bent = try Self.look("ColorControls", ["saturation": 2]).then(try Self.look("ColorControls", ["saturation": 0.5]))
        #expect(bent.chromaPlanes == nil)
        // Black-and-white looks have one colour per luma level on RGB.
        for name in ["PhotoEffectMono", "PhotoEffectNoir", "PhotoEffectTonal"] {
            #expect(try Self.look(name, [:]).rgbKernel(redFirst: true)?.colours != nil, "\(name)")
        }
        #expect(try Self.look("PhotoEffectInstant", [:]).rgbKernel(redFirst: true)?.colours == nil)
    }

    /// The lanes compute exactly what `value` says, at every row length up to a few vectors.
    @Test func byteAffineLanesMatchTheScalarFormula() throws {
        let maps = try [Self.look("PhotoEffectChrome", [:]).lumaLine, Self.look("PhotoEffectFade", [:]).lumaLine,
                        Self.look("PhotoEffectProcess", [:]).chromaPlanes?.cb, Self.look("PhotoEffectProcess", [:]).chromaPlanes?.cr,
                        Self.look("SepiaTone", [:]).chromaPlanes?.cb].compactMap { $0 }
        #expect(maps.count == 5)
        var noise = Noise(state: 3)
        let a = (0..<100).map { _ in noise.next() }, b = (0..<100).map { _ in noise.next() }
        for map in maps {
            for count in [0, 1, 15, 31, 32, 33, 63, 64, 65, 99] {
                var out = [UInt8](repeating: 0, count: 100), out2 = [UInt8](repeating: 0, count: 100)
                a.withUnsafeBytes { ia in b.withUnsafeBytes { ib in
                    out.withUnsafeMutableBytes { oa in out2.withUnsafeMutableBytes { ob in
                        guard let ia = ia.baseAddress, let ib = ib.baseAddress, let oa = oa.baseAddress,
                              let ob = ob.baseAddress else { return }
                        ByteAffine.mapRows(ia, ib, oa, ob, count: count, cb: map, cr: map)
                    } }
                } }
                for x in 0..<count {
                    #expect(out[x] == map.value(Int(a[x]), Int(b[x])) && out2[x] == out[x], "count \(count), x \(x)")
                }
                #expect(out[count...].allSatisfy { $0 == 0 }, "wrote past \(count)")
            }
        }
    }

    /// yuv420p through each look: every sample within ±1 of the tables.
    @Test(arguments: [(67, 35), (2, 2), (130, 9)])
    func planarLooksAgreeWithTheTables(width: Int, height: Int) throws {
        let picture = try Self.noise(width: width, height: height, format: .yuv420p)
        for (name, values) in Self.looks {
            let look = try Self.look(name, values)
            let output = try PixelBuffer(width: width, height: height, pixelFormat: .yuv420p)
            try look.apply(picture, into: output)
            var worst = 0
            for y in 0..<height {
                for x in 0..<width {
                    let before = Int(picture.element(plane: 0, x: x, y: y)?[0] ?? 0)
                    let after = Int(output.element(plane: 0, x: x, y: y)?[0] ?? 0)
                    worst = max(worst, abs(after - Int(look.luma[before])))
                }
            }
            for y in 0..<picture.planes[1].height {
                for x in 0..<picture.planes[1].width {
                    let cb = Int(picture.element(plane: 1, x: x, y: y)?[0] ?? 0)
                    let cr = Int(picture.element(plane: 2, x: x, y: y)?[0] ?? 0)
                    let pair = look.chroma[cb | cr << 8]
                    worst = max(worst, abs(Int(output.element(plane: 1, x: x, y: y)?[0] ?? 0) - Int(pair & 0xFF)),
                                abs(Int(output.element(plane: 2, x: x, y: y)?[0] ?? 0) - Int(pair >> 8)))
                }
            }
            #expect(worst <= 1, "\(name) \(values): \(worst) levels from the tables")
        }
    }

    /// A gently curved luma (Instant's) is computed on RGB rather than looked up, and the
    /// bent line lands within a level of the table at every level.
    @Test func bentLinesFollowTheirCurves() throws {
        let instant = try #require(try Self.look("PhotoEffectInstant", [:]).rgbKernel(redFirst: true))
        #expect(instant.bends != nil)
        for (name, values) in Self.looks {
            let look = try Self.look(name, values)
            guard let bends = look.rgbKernel(redFirst: true)?.bends else { continue }
            let levels = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
            for start in stride(from: 0, to: 256, by: 8) {
                let bent = bends.lanes.value(levels + Float(start))
                for lane in 0..<8 {
                    #expect(abs(bent[lane] - Float(look.luma[start + lane])) <= 1.001,
                            "\(name) \(values) at \(start + lane): \(bent[lane]), table \(look.luma[start + lane])")
                }
            }
        }
    }

    /// RGBA through each look: within ±1 of the kernel's own scalar arithmetic, close to the
    /// per-pixel table path (which rounds luma and chroma to 8 bits in between, where the kernel
    /// does not: up to a few levels where the look's gains magnify that rounding, under one on
    /// average), and BGRA the same with R and B swapped.
    @Test(arguments: [(37, 19), (8, 1), (1, 3)])
    func rgbLooksAgreeWithTheTables(width: Int, height: Int) throws {
        let picture = try Self.noise(width: width, height: height, format: .rgba)
        // The same pixels with bytes 0 and 2 exchanged.
        let swapped = try PixelBuffer(width: width, height: height, pixelFormat: .bgra)
        picture.withPlane(0) { input, inStride in
            swapped.withMutablePlane(0) { output, outStride in
                for y in 0..<height {
                    for x in 0..<width {
                        for (from, to) in [(0, 2), (1, 1), (2, 0), (3, 3)] {
                            output.storeBytes(of: input.load(fromByteOffset: y * inStride + 4 * x + from, as: UInt8.self),
                                              toByteOffset: y * outStride + 4 * x + to, as: UInt8.self)
                        }
                    }
                }
            }
        }
        for (name, values) in Self.looks {
            let look = try Self.look(name, values)
            guard look.rgbKernel(redFirst: true) != nil else { continue }
            let output = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
            let reference = try PixelBuffer(width: width, height: height, pixelFormat: .rgba)
            let bgra = try PixelBuffer(width: width, height: height, pixelFormat: .bgra)
            try look.apply(picture, into: output)
            look.mapRGBTables(picture, reference, redFirst: true)
            try look.apply(swapped, into: bgra)
            let kernel = try #require(look.rgbKernel(redFirst: true))
            var worst = 0, total = 0, worstScalar = 0
            for y in 0..<height {
                for x in 0..<width {
                    let p = output.element(plane: 0, x: x, y: y) ?? [], q = reference.element(plane: 0, x: x, y: y) ?? []
                    let s = bgra.element(plane: 0, x: x, y: y) ?? []
                    let i = picture.element(plane: 0, x: x, y: y) ?? []
                    let scalar = kernel.pixel(UInt32(i[0]) | UInt32(i[1]) << 8 | UInt32(i[2]) << 16 | UInt32(i[3]) << 24)
                    for c in 0..<3 {
                        worst = max(worst, abs(Int(p[c]) - Int(q[c])))
                        total += abs(Int(p[c]) - Int(q[c]))
                        worstScalar = max(worstScalar, abs(Int(p[c]) - Int(scalar >> (8 * UInt32(c)) & 0xFF)))
                    }
                    #expect(p[3] == i[3] && s == [p[2], p[1], p[0], p[3]], "\(name) at \(x), \(y)")
                }
            }
            #expect(worstScalar <= 1, "\(name) \(values): \(worstScalar) levels from the scalar kernel")
            #expect(worst <= 5 && Double(total) / Double(3 * width * height) < 1, "\(name) \(values): \(worst) levels from the tables")
        }
    }
}
