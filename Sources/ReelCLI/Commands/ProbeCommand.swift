import Foundation
import ReelAsset
import ReelCore

/// `reel probe FILE… [--json]`: what each file holds.
struct ProbeCommand: Command {
    let spec = CommandSpec(
        name: "probe",
        abstract: "Show the tracks, duration and metadata of media files.",
        usage: "FILE... [--json]",
        positionals: 1...Int.max,
        positionalsUnbounded: true,
        options: [.flag("json", short: "j", help: "Print a JSON list, one object per file.")],
        discussion: """
        Exit status: 0 when every file was read, 2 when any could not be, 1 for a usage error.
        Rotation is the clockwise turn applied for display (an iPhone portrait clip is 90).

        Example:
          reel probe clip.mp4
          reel probe --json *.mp4 | jq '.[].duration'
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        var reports: [ProbeReport] = []
        var failed = false
        for path in arguments.positionals {
            do {
                let asset = try Asset(path: path)
                reports.append(ProbeReport(file: path, asset: asset))
                if !arguments.flag("json") { console.print(Self.describe(asset, file: path)) }
            } catch {
                failed = true
                reports.append(ProbeReport(file: path, error: error.description))
                if !arguments.flag("json") { console.printError("reel probe: \(error)") }
            }
        }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(reports)
            console.print(String(decoding: data, as: UTF8.self))
        }
        return failed ? 2 : 0
    }

    /// The readable summary: a line for the file, a line per track.
    static func describe(_ asset: Asset, file: String) -> String {
        var head = "\(file): \(asset.formatName.split(separator: ",").first ?? ""), \(Format.seconds(asset.duration))"
        head += ", \(Format.bytes(asset.fileSize))"
        if asset.bitRate > 0 { head += ", \(Format.bitRate(Double(asset.bitRate)))" }
        if let date = asset.metadata.creationDate { head += ", created \(Format.date(date))" }
        var lines = [head]
        if let make = asset.metadata.make ?? asset.metadata.model {
            lines.append("  camera: \([make, asset.metadata.model].compactMap { $0 }.uniqued().joined(separator: " "))")
        }
        if let location = asset.metadata.location { lines.append("  location: \(location.iso6709)") }
        for track in asset.tracks {
            var line = "  #\(track.streamIndex) \(track.mediaType) \(track.codec)"
            if let profile = track.profile { line += " (\(profile))" }
            switch track.mediaType {
            case .video:
                line += " \(Int(track.naturalSize.width))x\(Int(track.naturalSize.height))"
                if track.rotation != 0 { line += " rotated \(track.rotation)°" }
                line += ", \(Format.number(track.nominalFrameRate)) fps"
                if track.frameCount > 0 { line += ", \(track.frameCount) frames" }
            case .audio:
                line += " \(track.sampleRate) Hz \(track.channelLayout?.name ?? "\(track.channelCount) channels")"
            default:
                break
            }
            line += ", \(Format.seconds(track.timeRange.duration))"
            if track.estimatedDataRate > 0 { line += ", \(Format.bitRate(track.estimatedDataRate))" }
            if let language = track.languageCode { line += ", \(language)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// The JSON object for one file. Keys are stable; new ones may be added.
struct ProbeReport: Encodable {
    struct Dimensions: Encodable {
        var width: Int
        var height: Int
    }

    struct Track: Encodable {
        var index: Int
        var trackID: Int
        var mediaType: String
        var codec: String
        var profile: String?
        var startTime: Double?
        var duration: Double?
        var bitRate: Double?
        var language: String?
        var naturalSize: Dimensions?
        var rotation: Int?
        var nominalFrameRate: Double?
        var frameCount: Int?
        var pixelFormat: String?
        var sampleRate: Int?
        var channels: Int?
        var channelLayout: String?
    }

    var file: String
    var duration: Double?
    var format: String?
    var size: Int64?
    var bitRate: Int64?
    var creationDate: String?
    var make: String?
    var model: String?
    var location: String?
    var tracks: [Track]?
    var error: String?

    init(file: String, error: String) {
        self.file = file
        self.error = error
    }

    init(file: String, asset: Asset) {
        self.file = file
        duration = asset.duration.isNumeric ? asset.duration.seconds : nil
        format = asset.formatName
        size = asset.fileSize
        bitRate = asset.bitRate > 0 ? asset.bitRate : nil
        creationDate = asset.metadata.creationDate.map(Format.date)
        make = asset.metadata.make
        model = asset.metadata.model
        location = asset.metadata.location?.iso6709
        tracks = asset.tracks.map { track in
            let video = track.mediaType == .video
            let audio = track.mediaType == .audio
            return Track(
                index: track.streamIndex,
                trackID: track.trackID,
                mediaType: track.mediaType.rawValue,
                codec: track.codec,
                profile: track.profile,
                startTime: track.timeRange.start.isNumeric ? track.timeRange.start.seconds : nil,
                duration: track.timeRange.duration.isNumeric ? track.timeRange.duration.seconds : nil,
                bitRate: track.estimatedDataRate > 0 ? track.estimatedDataRate : nil,
                language: track.languageCode,
                naturalSize: video ? Dimensions(width: Int(track.naturalSize.width), height: Int(track.naturalSize.height)) : nil,
                rotation: video ? track.rotation : nil,
                nominalFrameRate: video ? track.nominalFrameRate : nil,
                frameCount: track.frameCount > 0 ? track.frameCount : nil,
                pixelFormat: video ? track.pixelFormatName : nil,
                sampleRate: audio ? track.sampleRate : nil,
                channels: audio ? track.channelCount : nil,
                channelLayout: audio ? track.channelLayout?.name : nil)
        }
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
