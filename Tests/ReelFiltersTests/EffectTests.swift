import Foundation
import ReelCore
import ReelFilters
import Testing

/// Known pixels through each effect.
@Suite struct EffectTests {
    /// An RGBA picture of 16x16 cells, each a different colour, plus greys down the left.
    static func colourChart() throws -> PixelBuffer {
        let picture = try PixelBuffer(width: 64, height: 64, pixelFormat: .rgba)
        for cy in 0..<4 {
            for cx in 0..<4 {
                let r = UInt8(cx * 80), g = UInt8(cy * 80), b = UInt8(255 - (cx + cy) * 30)
                let grey = cx == 0
                picture.fillRect(x: cx * 16, y: cy * 16, width: 16, height: 16,
                                 rgba: grey ? (UInt8(cy * 80), UInt8(cy * 80), UInt8(cy * 80), 255) : (r, g, b, 255))
            }
        }
        return picture
    }

    /// The colour chart in BT.709 video-range YCbCr, its 64 rows repeated down `height` lines:
    /// 720 by default, so that the picture is BT.709 by Reel's rule (``ColorMatrix``) and the
    /// looks' tables apply as they are; below 720 lines the chain takes their BT.601 copies.
    static func yuvChart(height: Int = 720) throws -> PixelBuffer {
        let rgba = try colourChart()
        let yuv = try PixelBuffer(width: 64, height: height, pixelFormat: .yuv420p)
        // Convert through the chain's own RGB path: a neutral ColorControls is an identity look.
        for y in 0..<height {
            for x in 0..<64 {
                let p = rgba.element(plane: 0, x: x, y: y % 64) ?? [0, 0, 0, 0]
                let luma = 16 + (0.2126 * Double(p[0]) + 0.7152 * Double(p[1]) + 0.0722 * Double(p[2])) * 219 / 255
                yuv.withMutablePlane(0) { $0.storeBytes(of: UInt8(luma.rounded()), toByteOffset: y * $1 + x, as: UInt8.self) }
                if x % 2 == 0, y % 2 == 0 {
                    let yl = 0.2126 * Double(p[0]) + 0.7152 * Double(p[1]) + 0.0722 * Double(p[2])
                    let cb = 128 + (Double(p[2]) - yl) / 1.8556 * 224 / 255
                    let cr = 128 + (Double(p[0]) - yl) / 1.5748 * 224 / 255
                    yuv.withMutablePlane(1) { $0.storeBytes(of: UInt8(cb.rounded()), toByteOffset: (y / 2) * $1 + x / 2, as: UInt8.self) }
                    yuv.withMutablePlane(2) { $0.storeBytes(of: UInt8(cr.rounded()), toByteOffset: (y / 2) * $1 + x / 2, as: UInt8.self) }
                }
            }
        }
        return yuv
    }

    static let colourEffects = ["PhotoEffectChrome", "PhotoEffectFade", "PhotoEffectInstant", "PhotoEffectMono",
                                "PhotoEffectNoir", "PhotoEffectProcess", "PhotoEffectTonal", "PhotoEffectTransfer",
                                "ColorControls", "ExposureAdjust", "SepiaTone"]

    @Test(arguments: ["PhotoEffectMono", "PhotoEffectNoir", "PhotoEffectTonal"])
    func blackAndWhiteEffectsGiveEqualChannels(name: String) throws {
        let output = try FilterChain([try Filter(name: name)]).apply(try Self.colourChart())
        for y in stride(from: 0, to: 64, by: 5) {
            for x in stride(from: 0, to: 64, by: 5) {
                let p = try #require(output.element(plane: 0, x: x, y: y))
                #expect(p[0] == p[1] && p[1] == p[2], "\(name) at (\(x), \(y)): \(p)")
            }
        }
        // And in YCbCr: the chroma is exactly neutral.
        let yuv = try FilterChain([try Filter(name: name)]).apply(try Self.yuvChart())
        #expect(yuv.element(plane: 1, x: 20, y: 20) == [128] && yuv.element(plane: 2, x: 5, y: 25) == [128])
    }

    @Test func tonalKeepsGreyNeutral() throws {
        let grey = try PixelBuffer(width: 8, height: 8, pixelFormat: .rgba)
        for level: UInt8 in [0, 60, 128, 200, 255] {
            grey.fillRect(x: 0, y: 0, width: 8, height: 8, rgba: (level, level, level, 255))
            let p = try #require(try FilterChain([try Filter(name: "PhotoEffectTonal")]).apply(grey).element(plane: 0, x: 3, y: 3))
            #expect(p[0] == p[1] && p[1] == p[2])
        }
    }

    @Test func monoKeepsLumaNoirAddsContrast() throws {
        let chart = try Self.yuvChart()
        let mono = try FilterChain([try Filter(name: "PhotoEffectMono")]).apply(chart)
        #expect(mono.element(plane: 0, x: 40, y: 40) == chart.element(plane: 0, x: 40, y: 40))
        let noir = try FilterChain([try Filter(name: "PhotoEffectNoir")]).apply(chart)
        let dark = Int(chart.element(plane: 0, x: 2, y: 20)?[0] ?? 0), darkNoir = Int(noir.element(plane: 0, x: 2, y: 20)?[0] ?? 0)
        #expect(darkNoir < dark, "Noir deepens shadows: \(dark) → \(darkNoir)")
    }

    /// Every colour effect looks different from every other on the chart.
    @Test func effectsAreDistinct() throws {
        let chart = try Self.colourChart()
        var outputs: [String: [UInt8]] = [:]
        for name in Self.colourEffects where name != "ColorControls" {
            let picture = try FilterChain([try Filter(name: name)]).apply(chart)
            var samples: [UInt8] = []
            for y in stride(from: 8, to: 64, by: 16) {
                for x in stride(from: 8, to: 64, by: 16) {
                    samples += Array((picture.element(plane: 0, x: x, y: y) ?? []).prefix(3))
                }
            }
            outputs[name] = samples
        }
        let names = outputs.keys.sorted()
        for (i, a) in names.enumerated() {
            for b in names[(i + 1)...] {
                var difference = 0
                for (x, y) in zip(outputs[a] ?? [], outputs[b] ?? []) { difference += abs(Int(x) - Int(y)) }
                #expect(difference / 48 >= 3, "\(a) and \(b) look alike (mean difference \(difference / 48))")
            }
        }
    }

    @Test func colorControlsAndSepiaDoWhatTheySay() throws {
        let chart = try Self.yuvChart()
        let controls = try Filter(name: "CIColorControls")
        try controls.setValue(0, forKey: "inputSaturation")
        try controls.setValue(0.2, forKey: "brightness")
        let grey = try FilterChain([controls]).apply(chart)
        #expect(grey.element(plane: 1, x: 10, y: 10) == [128])
        #expect(Int(grey.element(plane: 0, x: 0, y: 0)?[0] ?? 0) > Int(chart.element(plane: 0, x: 0, y: 0)?[0] ?? 0) + 30)
        let sepia = try FilterChain([try Filter(name: "SepiaTone")]).apply(chart)
        #expect(sepia.element(plane: 1, x: 3, y: 3) == [101] && sepia.element(plane: 2, x: 30, y: 3) == [148])
        #expect(sepia.element(plane: 0, x: 33, y: 33) == chart.element(plane: 0, x: 33, y: 33))
    }

    @Test func parametersAreCheckedByName() throws {
        let controls = try Filter(name: "ColorControls")
        #expect(throws: ReelError.self) { try controls.setValue(1, forKey: "sharpness") }
        #expect(throws: ReelError.self) { try controls.setValue(9, forKey: "saturation") }
        #expect(throws: ReelError.self) { try Filter(name: "PhotoEffectSparkle") }
        #expect(controls.value(forKey: "inputContrast") == 1)
        // `inputKeys` lists what `setValue(_:forKey:)` takes, and nothing else.
        #expect(Set(controls.inputKeys).isSuperset(of: ["saturation", "brightness", "contrast"]), "\(controls.inputKeys)")
        for key in controls.inputKeys { #expect(controls.value(forKey: key) != nil, "\(key)") }
        #expect(try Filter(name: "PhotoEffectNoir").inputKeys.isEmpty)
        #expect(try FilterChain.parse("PhotoEffectNoir, ColorControls:saturation=1.2:contrast=1.1").map(\.name)
                == ["PhotoEffectNoir", "ColorControls"])
        #expect(throws: ReelError.self) { try FilterChain.parse("ColorControls:saturation=lots") }
    }

    @Test func vignetteDarkensCornersNotTheCentre() throws {
        let white = try PixelBuffer(width: 101, height: 61, pixelFormat: .rgba)
        white.fillRect(x: 0, y: 0, width: 101, height: 61, rgba: (200, 200, 200, 255))
        let output = try FilterChain([try Filter(name: "Vignette")]).apply(white)
        #expect(output.element(plane: 0, x: 50, y: 30)?[0] == 200)
        #expect((output.element(plane: 0, x: 0, y: 0)?[0] ?? 255) < 40)
    }

    @Test func blurSpreadsAnEdge() throws {
        let picture = try PixelBuffer(width: 64, height: 32, pixelFormat: .yuv420p)
        picture.fill(planeValues: [16, 128, 128])
        picture.withMutablePlane(0) { base, stride in
            for y in 0..<32 { for x in 32..<64 { base.storeBytes(of: UInt8(235), toByteOffset: y * stride + x, as: UInt8.self) } }
        }
        let blur = try Filter(name: "GaussianBlur")
        try blur.setValue(3, forKey: "radius")
        let output = try FilterChain([blur]).apply(picture)
        let edge = Int(output.element(plane: 0, x: 31, y: 16)?[0] ?? 0)
        #expect(edge > 40 && edge < 200, "the edge is softened: \(edge)")
        #expect(output.element(plane: 0, x: 2, y: 16) == [16])
    }

    @Test func chainOfColourEffectsFoldsIntoOnePassWithTheSameResult() throws {
        let chart = try Self.yuvChart()
        let folded = try FilterChain([try Filter(name: "PhotoEffectChrome"), try Filter(name: "SepiaTone")]).apply(chart)
        let first = try FilterChain([try Filter(name: "PhotoEffectChrome")]).apply(chart)
        let stepwise = try FilterChain([try Filter(name: "SepiaTone")]).apply(first)
        for (x, y) in [(5, 5), (20, 40), (50, 10)] {
            #expect(folded.element(plane: 0, x: x, y: y) == stepwise.element(plane: 0, x: x, y: y))
            #expect(folded.element(plane: 1, x: x / 2, y: y / 2) == stepwise.element(plane: 1, x: x / 2, y: y / 2))
        }
    }

    @Test func nv12AndYUV420GiveTheSameLook() throws {
        let chart = try Self.yuvChart(height: 64)
        let nv12 = try PixelBuffer(width: 64, height: 64, pixelFormat: .nv12)
        try nv12.withMutablePlane(0) { (base, stride) throws(ReelError) in
            chart.withPlane(0) { source, sourceStride in
                for y in 0..<64 { (base + y * stride).copyMemory(from: source + y * sourceStride, byteCount: 64) }
            }
        }
        for y in 0..<32 {
            for x in 0..<32 {
                let cb = chart.element(plane: 1, x: x, y: y)?[0] ?? 0, cr = chart.element(plane: 2, x: x, y: y)?[0] ?? 0
                nv12.withMutablePlane(1) { base, stride in
                    base.storeBytes(of: cb, toByteOffset: y * stride + 2 * x, as: UInt8.self)
                    base.storeBytes(of: cr, toByteOffset: y * stride + 2 * x + 1, as: UInt8.self)
                }
            }
        }
        let chain = FilterChain([try Filter(name: "PhotoEffectInstant")])
        let a = try chain.apply(chart), b = try chain.apply(nv12)
        #expect(a.element(plane: 0, x: 9, y: 9) == b.element(plane: 0, x: 9, y: 9))
        #expect([a.element(plane: 1, x: 7, y: 7)?[0] ?? 0, a.element(plane: 2, x: 7, y: 7)?[0] ?? 0] == b.element(plane: 1, x: 7, y: 7))
    }
}
