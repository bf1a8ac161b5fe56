import Foundation
import ReelAsset
import ReelCore
import ReelFilters

/// `reel filters [--sheet OUT] [--input FILE]`: what effects there are, and how they look.
struct FiltersCommand: Command {
    let spec = CommandSpec(
        name: "filters",
        abstract: "List the filters and their parameters, or draw the reference sheet.",
        usage: "[--sheet OUT.png [--input FILE] [--at SECONDS]] [--bench]",
        positionals: 0...0,
        options: [
            .value("sheet", "OUT", help: "Draw every effect on one frame as a labelled grid."),
            .value("input", short: "i", "FILE", help: "Take the sheet's frame from this video or picture."),
            .value("at", "SECONDS", help: "The time of that frame (default: the middle)."),
            .flag("bench", help: "Time each effect on 1920x1080 frames (run a release build)."),
        ],
        discussion: """
        Filters chain with commas, parameters follow a colon:
          reel filter in.mp4 --filter PhotoEffectNoir,ColorControls:saturation=1.2 -o out.mp4
          reel filter in.jpg --filter ColorCube:file=look.cube -o out.jpg
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if arguments.flag("bench") { return try FilterBench.run(console: console) }
        if arguments.value("sheet") == nil, arguments.value("input") != nil || arguments.value("at") != nil {
            throw UsageError("--input and --at go with --sheet", command: spec.name)
        }
        guard let sheetPath = arguments.value("sheet") else {
            for entry in FilterCatalog.entries {
                console.print("\(entry.name)  \(entry.summary)")
                for parameter in entry.parameters {
                    console.print("    \(parameter.name) = \(Format.number(parameter.defaultValue))"
                                  + "  (\(Format.number(parameter.range.lowerBound))...\(Format.number(parameter.range.upperBound)))"
                                  + "  \(parameter.summary)")
                }
                if entry.name == "ColorCube" { console.print("    file = PATH.cube  an Adobe .cube 3D LUT") }
            }
            return 0
        }
        let url = URL(fileURLWithPath: sheetPath)
        guard ImageFile.Format(pathExtension: url.pathExtension) != nil else {
            throw UsageError("--sheet must end in .png, .jpg or .jpeg, not '\(sheetPath)'", command: spec.name)
        }
        let frame: PixelBuffer
        if let input = arguments.value("input") {
            let asset = try Asset(path: input)
            let generator = ImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            let middle = asset.duration.isNumeric ? asset.duration.seconds / 2 : 0
            let at = try arguments.double("at", in: 0...1e7) ?? middle
            frame = try generator.image(at: MediaTime(seconds: at, preferredTimescale: 1000)).image
        } else {
            frame = try FilterSheet.referenceFrame()
        }
        let sheet = try FilterSheet.render(frame)
        try ImageFile.write(sheet, to: url)
        console.printError("wrote \(sheetPath): \(sheet.width)x\(sheet.height), \(FilterSheet.effectNames.count) effects")
        return 0
    }
}

/// Per-frame cost of each effect at 1920x1080, beside a plain copy of the frame.
///
/// Both read their frames in turn from a set larger than the last-level cache, as frames
/// fresh from a decoder or camera are: one frame copied over and over stays in the cache
/// and measures the cache, not the memory floor the effects are held against. Each
/// effect's frames alternate with copies of other frames, and its ratio is to those copies,
/// so a machine that slows down for a moment slows both sides. The list runs three times
/// and each effect reports its median pass: a neighbour taking one of two cores for a
/// second slows the two-core effects and not the one-core copy.
enum FilterBench {
    /// 16 frames: 50 MB of yuv420p, 133 MB of RGBA, past this machine's 32 MB L3.
    static let distinctFrames = 16
    static let passes = 3

    static func run(console: Console) throws -> Int32 {
        let frames = 48
        func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
        func median(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }
        let reference = try FilterSheet.referenceFrame(width: 1920, height: 1080)
        for format in [PixelFormat.yuv420p, .rgba] {
            let converted = try PixelScaler.converted(reference, to: format)
            let sources = try (0..<distinctFrames).map { _ in
                let frame = try PixelBuffer(width: 1920, height: 1080, pixelFormat: format)
                try frame.copyPixels(from: converted)
                return frame
            }
            let copy = try PixelBuffer(width: 1920, height: 1080, pixelFormat: format)
            /// Medians of (copy, effect) over frames taken in turn, each copy just before an effect.
            func alternate(_ effect: (PixelBuffer) throws -> Void) throws -> (copy: Double, effect: Double) {
                var copies: [Double] = [], effects: [Double] = []
                for index in 0..<frames {
                    // Half the set apart, so neither finds its frame in the cache from the other.
                    let copied = sources[index % distinctFrames]
                    let filtered = sources[(index + distinctFrames / 2) % distinctFrames]
                    let start = now()
                    try copy.copyPixels(from: copied)
                    let between = now()
                    try effect(filtered)
                    let done = now()
                    copies.append(Double(between - start) / 1e6)
                    effects.append(Double(done - between) / 1e6)
                }
                return (median(copies), median(effects))
            }
            let floor = try alternate { _ in }
            console.print(String(format: "%@ copy %.3f ms", format.rawValue, floor.copy))
            let names = FilterSheet.effectNames + ["ColorCube"]
            let chains = try names.map { name in
                let filter = name == "ColorCube" ? Filter(cube: try CubeLUT(text: CubeLUT.identityText(size: 33)))
                    : try Filter(name: name)
                let chain = FilterChain([filter])
                _ = try chain.apply(sources[0])
                return chain
            }
            var results = [[(copy: Double, effect: Double)]](repeating: [], count: names.count)
            for _ in 0..<passes {
                for (index, chain) in chains.enumerated() {
                    results[index].append(try alternate { _ = try chain.apply($0) })
                }
            }
            for (name, passes) in zip(names, results) {
                let middle = passes.sorted { $0.effect / $0.copy < $1.effect / $1.copy }[passes.count / 2]
                console.print(String(format: "%@ %@ %.3f ms %.2fx", format.rawValue, name, middle.effect,
                                     middle.effect / middle.copy))
            }
        }
        return 0
    }
}
