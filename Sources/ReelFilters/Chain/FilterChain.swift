import Foundation
import ReelAV
public import ReelCore

/// Filters applied in order to pictures: what a live preview and a recorder share,
/// so that the frame shown is the frame written.
///
/// Runs of colour effects fold into one table pass. The list of filters may be
/// replaced from any thread; each picture is filtered entirely by the list that was
/// current when ``apply(_:)`` began, never by a mix. Call ``apply(_:)`` from one
/// thread at a time (the capture queue). Outputs come from a pool, so the steady
/// state allocates nothing.
public final class FilterChain: @unchecked Sendable {
    private let lock = NSLock()
    private var _filters: [Filter]
    private var compiled: Compiled?
    private var pools: [PoolKey: PixelBufferPool] = [:]

    private struct PoolKey: Hashable {
        var width: Int, height: Int, format: PixelFormat
    }

    /// The filters, first applied first. Setting them takes effect at the next frame.
    public var filters: [Filter] {
        get { lock.withLock { _filters } }
        set { lock.withLock { _filters = newValue } }
    }

    /// A chain of `filters`.
    /// - Parameter filters: The filters in the order they apply; empty passes pictures through.
    public init(_ filters: [Filter] = []) {
        _filters = filters
    }

    /// A chain from text such as `PhotoEffectNoir,ColorControls:saturation=1.2,ColorCube:file=look.cube`.
    /// - Parameter spec: The chain as text, filters separated by commas, parameters by colons.
    /// - Throws: ``ReelError`` naming the filter or parameter that is wrong.
    public convenience init(spec: String) throws(ReelError) {
        self.init(try Self.parse(spec))
    }

    /// The filtered picture, in the input's size and format. An empty chain returns the input.
    /// - Parameter input: The picture to filter; it is not changed.
    /// - Returns: A new picture with every filter applied (or `input` itself for an empty chain).
    /// - Throws: ``ReelError`` `.unsupported` for a pixel format a filter cannot take.
    public func apply(_ input: PixelBuffer) throws(ReelError) -> PixelBuffer {
        let stages = try currentStages()
        guard !stages.isEmpty else { return input }
        let pool = try outputPool(for: input)
        var current = input
        for stage in stages {
            let output = pool.makePixelBuffer()
            try stage.run(current, into: output)
            current = output
        }
        return current
    }

    private func outputPool(for input: PixelBuffer) throws(ReelError) -> PixelBufferPool {
        let key = PoolKey(width: input.width, height: input.height, format: input.pixelFormat)
        lock.lock()
        defer { lock.unlock() }
        if let pool = pools[key] { return pool }
        let pool = try PixelBufferPool(width: key.width, height: key.height, pixelFormat: key.format, maximumFreeBuffers: 6)
        if pools.count > 4 { pools.removeAll() }
        pools[key] = pool
        return pool
    }

    // MARK: - Compiling

    final class Compiled {
        let signature: [Signature]
        let stages: [any Stage]
        init(signature: [Signature], stages: [any Stage]) {
            self.signature = signature
            self.stages = stages
        }
    }

    struct Signature: Equatable {
        let filter: Int
        let version: Int
    }

    private func currentStages() throws(ReelError) -> [any Stage] {
        lock.lock()
        defer { lock.unlock() }
        let snapshots = _filters.map { ($0, $0.snapshot) }
        let signature = snapshots.map { Signature(filter: $0.0.serial, version: $0.1.version) }
        if let compiled, compiled.signature == signature { return compiled.stages }
        var stages: [any Stage] = []
        var look: ColorLook?
        func flush() {
            if let pending = look { stages.append(LookStage(look: pending)) }
            look = nil
        }
        for (filter, snapshot) in snapshots {
            if filter.entry.isColorEffect, let next = FilterCatalog.look(named: filter.name, values: snapshot.values) {
                look = look.map { $0.then(next) } ?? next
                continue
            }
            flush()
            switch filter.name {
            case "Vignette":
                stages.append(VignetteStage(vignette: Vignette(intensity: snapshot.values["intensity"] ?? 1,
                                                               radius: snapshot.values["radius"] ?? 1)))
            case "GaussianBlur":
                stages.append(BlurStage(sigma: snapshot.values["radius"] ?? 10))
            case "ColorCube":
                if let cube = filter.cube { stages.append(CubeStage(cube: cube)) }
            default:
                break
            }
        }
        flush()
        compiled = Compiled(signature: signature, stages: stages)
        return stages
    }

    // MARK: - Parsing

    /// Parses the text form of a chain. A `ColorCube`'s `file=` runs to the end of its
    /// filter, so a path may hold `:` and `,`: a comma starts the next filter only where
    /// a filter name (one `reel filters` lists) follows it.
    /// - Parameter spec: The chain as text.
    /// - Returns: The filters, with their parameters set, in order.
    /// - Throws: ``ReelError`` naming the filter or parameter that is wrong.
    public static func parse(_ spec: String) throws(ReelError) -> [Filter] {
        var filters: [Filter] = []
        for part in parts(of: spec) {
            let pieces = part.split(separator: ":").map(String.init)
            let name = pieces[0]
            if isCube(part) {
                guard let marker = part.range(of: ":file=") else {
                    throw ReelError(.invalidArgument, "ColorCube needs file=PATH.cube", subject: ReelError.quoted(part))
                }
                let file = String(part[marker.upperBound...])
                guard !file.isEmpty else {
                    throw ReelError(.invalidArgument, "ColorCube's file= names no file", subject: ReelError.quoted(part))
                }
                do throws(ReelError) {
                    filters.append(Filter(cube: try CubeLUT(contentsOf: URL(fileURLWithPath: file))))
                } catch {
                    // The file is what is wrong, and a chain's errors are shown by their message:
                    // the path goes into it.
                    var named = error
                    named.message = "\(ReelError.quoted(error.subject ?? file, limit: 200)): \(error.message)"
                    named.subject = nil
                    throw named
                }
                continue
            }
            let filter = try Filter(name: name)
            for assignment in pieces.dropFirst() {
                let pair = assignment.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else {
                    throw ReelError(.invalidArgument, "'\(ReelError.quoted(assignment))' is not NAME=VALUE", subject: ReelError.quoted(part))
                }
                // Decimal only: Double("0x10") would read a hexadecimal 16.
                guard pair[1].allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }), let value = Double(pair[1]) else {
                    throw ReelError(.invalidArgument, "\(name).\(ReelError.quoted(pair[0])) wants a decimal number, not '\(ReelError.quoted(pair[1]))'",
                                    subject: ReelError.quoted(part))
                }
                try filter.setValue(value, forKey: pair[0])
            }
            filters.append(filter)
        }
        return filters
    }

    /// The `.cube` files a chain's text names (what an output must not replace).
    /// - Parameter spec: The chain as text.
    /// - Returns: The paths as written, in order; empty when no `ColorCube` names a file.
    public static func cubeFiles(in spec: String) -> [String] {
        parts(of: spec).filter(isCube).compactMap { part in
            part.range(of: ":file=").map { String(part[$0.upperBound...]) }
        }
    }

    /// The chain's filters as text, one each, trimmed: a comma inside a `ColorCube` path stays in it.
    private static func parts(of spec: String) -> [String] {
        var parts: [String] = []
        for piece in spec.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            let name = piece.trimmingCharacters(in: .whitespaces).split(separator: ":").first.map(String.init) ?? ""
            if let last = parts.last, isCube(last), last.contains("file="), FilterCatalog.entry(named: name) == nil,
               name != "CIColorCube" {
                parts[parts.count - 1] = last + "," + piece
            } else {
                parts.append(piece)
            }
        }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func isCube(_ part: String) -> Bool {
        let name = part.trimmingCharacters(in: .whitespaces)
        return name.hasPrefix("ColorCube:") || name.hasPrefix("CIColorCube:") || name == "ColorCube" || name == "CIColorCube"
    }
}

/// One pass of a compiled chain.
protocol Stage: AnyObject {
    func run(_ input: PixelBuffer, into output: PixelBuffer) throws(ReelError)
}

/// A look on a picture: through its BT.709 tables on RGB pictures and YCbCr ones of 720 lines
/// and up, through its BT.601 tables (``ColorLook/standard()``, made when a picture first
/// needs them) below 720 lines (``ColorMatrix``), so a colour's RGB comes out alike at every size.
final class LookStage: Stage {
    let look: ColorLook
    private let standard = PosixMutex<ColorLook.Standard?>(nil)
    init(look: ColorLook) { self.look = look }
    func run(_ input: PixelBuffer, into output: PixelBuffer) throws(ReelError) {
        guard input.pixelFormat.isYUV, ColorMatrix(height: input.height) == .bt601 else {
            try look.apply(input, into: output)
            return
        }
        let tables = standard.withLock { made -> ColorLook.Standard in
            if let made { return made }
            let tables = look.standard()
            made = tables
            return tables
        }
        try look.apply(input, into: output, standard: tables)
    }
}

final class VignetteStage: Stage {
    let vignette: Vignette
    private var gains: (width: Int, height: Int, values: [UInt16])?
    init(vignette: Vignette) { self.vignette = vignette }
    func run(_ input: PixelBuffer, into output: PixelBuffer) throws(ReelError) {
        if gains?.width != input.width || gains?.height != input.height {
            gains = (input.width, input.height, vignette.gains(width: input.width, height: input.height))
        }
        try vignette.apply(input, into: output, gains: gains?.values ?? [])
    }
}

final class BlurStage: Stage {
    let sigma: Double
    private var graph: FilterGraph?
    init(sigma: Double) { self.sigma = sigma }
    func run(_ input: PixelBuffer, into output: PixelBuffer) throws(ReelError) {
        guard sigma > 0 else {
            try output.copyPixels(from: input)
            return
        }
        if graph == nil || graph?.width != input.width || graph?.height != input.height || graph?.pixelFormat != input.pixelFormat {
            graph = try FilterGraph(description: "gblur=sigma=\(sigma)", width: input.width, height: input.height,
                                    pixelFormat: input.pixelFormat)
        }
        try graph?.process(input, into: output)
    }
}

final class CubeStage: Stage {
    private let cube: CubeLUT
    /// The lattice for RGB pictures and those for YCbCr pictures (one a matrix: BT.601 below
    /// 720 lines, BT.709 from 720 up, ``ColorMatrix``), each made when a picture first needs
    /// it (a 256-point cube's is 268 MB).
    private let lattices = PosixMutex<(rgb: CubeLUT.Prepared?, video: [ColorMatrix: CubeLUT.Prepared])>((nil, [:]))

    init(cube: CubeLUT) { self.cube = cube }

    func run(_ input: PixelBuffer, into output: PixelBuffer) throws(ReelError) {
        let videoRange: Bool
        switch input.pixelFormat {
        case .rgba, .bgra: videoRange = false
        case .yuv420p, .nv12: videoRange = true
        default: throw ReelError(.unsupported, "ColorCube runs on rgba, bgra, yuv420p and nv12, not \(input.pixelFormat)")
        }
        let matrix = ColorMatrix(height: input.height)
        let table = lattices.withLock { made -> CubeLUT.Prepared in
            if let table = videoRange ? made.video[matrix] : made.rgb { return table }
            let table = cube.prepared(videoRange: videoRange, matrix: matrix)
            if videoRange { made.video[matrix] = table } else { made.rgb = table }
            return table
        }
        try table.apply(input, into: output)
    }
}
