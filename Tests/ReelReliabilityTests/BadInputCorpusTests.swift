import Foundation
import ReelTestSupport
import Testing

/// Every command that reads media meets every file of the bad-input corpus
/// (Tests/Corpus/make-corpus.sh): a correct result, or a nonzero exit with one line on
/// stderr naming the file and the cause. Never a crash or a hang, never an output left
/// behind by a failure, never a changed source.
@Suite struct BadInputCorpusTests {
    /// What a corpus file must give.
    enum Expectation {
        /// Every command succeeds.
        case readable
        /// Every command, probe included, refuses it.
        case refused
        /// Probe describes it; every other command refuses it (it has no picture to work on).
        case probeOnly
        /// Either outcome, as long as it is a clean one.
        case either
    }

    static let expectations: [String: Expectation] = [
        "valid.mp4": .readable,
        "garbage-after-moov.mp4": .readable,
        "mdat-past-end-moov-first.mp4": .readable,
        "video-named.png": .readable,
        "vfr-gaps.mp4": .readable,
        "empty.mp4": .refused,
        "text-named.mp4": .refused,
        "truncated.mp4": .refused,
        "missing-moov.mp4": .refused,
        "mdat-past-end.mp4": .refused,
        "zero-timescale.mp4": .refused,
        "zero-timescales-all.mp4": .refused,
        "audio-only.mp4": .probeOnly,
        "subtitles-only.mp4": .probeOnly,
        "no-frames.mp4": .probeOnly,
        "huge-dimensions-raw.mov": .probeOnly,
        "huge-dimensions.mp4": .probeOnly,
        "negative-durations.mp4": .either,
        "negative-stts.mp4": .either,
        "picture-named.mp4": .either,
    ]

    /// What a command leaves when it succeeds.
    enum Product { case text, picture, movie }

    struct Invocation: Sendable {
        var command: String
        var product: Product
        /// The arguments, given the source and the folder for the output.
        var arguments: @Sendable (URL, URL) throws -> [String]
        /// How long a healthy source's output lasts, from the source's length.
        var expectedLength: @Sendable (Double) -> Double = { $0 }
    }

    static let validClip = "valid.mp4"

    static let invocations: [Invocation] = [
        Invocation(command: "probe", product: .text) { source, _ in ["probe", source.path] },
        Invocation(command: "thumbnail", product: .picture) { source, out in
            ["thumbnail", source.path, "--at", "0.5", "-o", out.appendingPathComponent("out.png").path]
        },
        Invocation(command: "contact-sheet", product: .picture) { source, out in
            ["contact-sheet", source.path, "-o", out.appendingPathComponent("out.png").path, "--columns", "2", "--rows", "2",
             "--width", "64"]
        },
        Invocation(command: "transcode", product: .movie) { source, out in
            ["transcode", source.path, "-o", out.appendingPathComponent("out.mp4").path, "--preset", "ultrafast"]
        },
        Invocation(command: "filter", product: .movie) { source, out in
            ["filter", source.path, "--filter", "PhotoEffectNoir", "-o", out.appendingPathComponent("out.mp4").path,
             "--preset", "ultrafast"]
        },
        Invocation(command: "merge", product: .movie, arguments: { source, out in
            ["merge", source.deletingLastPathComponent().appendingPathComponent(validClip).path, source.path,
             "-o", out.appendingPathComponent("out.mp4").path, "--preset", "640x480"]
        }, expectedLength: { $0 + 1 }),
        Invocation(command: "compose", product: .movie) { source, out in
            let spec = out.appendingPathComponent("spec.json")
            let json = try JSONSerialization.data(withJSONObject: ["preset": "640x480", "clips": [["file": source.path]]])
            try json.write(to: spec)
            return ["compose", spec.path, "-o", out.appendingPathComponent("out.mp4").path]
        },
        Invocation(command: "timeline", product: .picture) { source, out in
            let spec = out.appendingPathComponent("spec.json")
            let json = try JSONSerialization.data(withJSONObject: ["clips": [["file": source.path]]])
            try json.write(to: spec)
            return ["timeline", spec.path, "-o", out.appendingPathComponent("out.png").path]
        },
        Invocation(command: "export", product: .movie) { source, out in
            ["export", source.path, "--preset", "640x480", "-o", out.appendingPathComponent("out.mp4").path]
        },
        Invocation(command: "speed", product: .movie, arguments: { source, out in
            ["speed", source.path, "--rate", "2", "-o", out.appendingPathComponent("out.mp4").path]
        }, expectedLength: { $0 / 2 }),
    ]

    @Test func everyCorpusFileHasAnExpectation() {
        #expect(Corpus.names.count >= 18, "run Tests/Corpus/make-corpus.sh")
        #expect(Set(Corpus.names) == Set(Self.expectations.keys))
    }

    @Test(arguments: Corpus.names)
    func everyCommandMeetsIt(_ name: String) throws {
        let expectation = try #require(Self.expectations[name], "no expectation for \(name)")
        let root = try Paths.temporaryDirectory("reel-corpus")
        defer { try? FileManager.default.removeItem(at: root) }
        let sources = root.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let source = try Corpus.copy(name, to: sources)
        if name != Self.validClip { _ = try Corpus.copy(Self.validClip, to: sources) }
        let before = try Data(contentsOf: source)
        let sourceListing = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()

        var jobs: [(String, [String])] = []
        var folders: [URL] = []
        for invocation in Self.invocations {
            let folder = root.appendingPathComponent(invocation.command)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            folders.append(folder)
            jobs.append((Paths.reelBinary.path, try invocation.arguments(source, folder)))
        }
        let results = ProcessRunner.runConcurrently(jobs, width: 3, timeout: 20)

        for (index, invocation) in Self.invocations.enumerated() {
            let label = "\(invocation.command) \(name)"
            let result = try results[index].get()
            #expect(!result.timedOut, "\(label): still running after 20 s")
            #expect(!result.crashed, "\(label): died of signal \(result.status): \(result.standardError)")
            if result.timedOut || result.crashed { continue }
            let left = try FileManager.default.contentsOfDirectory(atPath: folders[index].path)
                .filter { $0 != "spec.json" }.sorted()
            if result.status == 0 {
                try checkSuccess(invocation, result: result, folder: folders[index], left: left, source: source,
                                 healthy: expectation == .readable, label: label)
            } else {
                let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: true)
                #expect(lines.count == 1, "\(label): stderr is not one line: \(result.standardError)")
                // The export check refuses an output (naming it) whose picture and sound disagree: on
                // these hostile files, the last frame overrunning the sound (issue 14, branch timestretch).
                #expect(result.standardError.contains(name) || result.standardError.contains("(export check)"),
                        "\(label): the error does not name the file: \(result.standardError)")
                #expect(left.isEmpty, "\(label): failed (\(result.standardError)) but left \(left)")
            }
            let succeeded = result.status == 0
            switch expectation {
            case .readable:
                #expect(succeeded, "\(label): should work: \(result.standardError)")
            case .refused:
                #expect(!succeeded, "\(label): should be refused")
            case .probeOnly:
                // The timeline reads only the index, like probe: a picture too large to decode
                // still has a place on it (an audio-only file has no video to place).
                if invocation.command == "timeline" { break }
                #expect(succeeded == (invocation.command == "probe"),
                        "\(label): probe alone should succeed; exit \(result.status) \(result.standardError)")
            case .either:
                break
            }
        }
        #expect(try Data(contentsOf: source) == before, "\(name) was modified")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() == sourceListing,
                "files appeared beside the sources")
    }

    private func checkSuccess(_ invocation: Invocation, result: ProcessResult, folder: URL, left: [String], source: URL,
                              healthy: Bool, label: String) throws {
        switch invocation.product {
        case .text:
            #expect(result.standardOutput.contains(source.lastPathComponent), "\(label): \(result.standardOutput)")
            #expect(left.isEmpty)
        case .picture:
            #expect(left == ["out.png"], "\(label): left \(left)")
            let probe = try FFprobe.probe(folder.appendingPathComponent("out.png"))
            let picture = try #require(probe.streams(ofType: "video").first, "\(label): no picture")
            #expect((picture.width ?? 0) > 0 && (picture.height ?? 0) > 0)
            if healthy, invocation.command == "thumbnail" { #expect(picture.width == 64 && picture.height == 48, "\(label)") }
        case .movie:
            #expect(left == ["out.mp4"], "\(label): left \(left)")
            let out = folder.appendingPathComponent("out.mp4")
            let probe = try FFprobe.probe(out)
            #expect(!probe.streams(ofType: "video").isEmpty, "\(label): no video in the output")
            let length = probe.duration ?? 0
            #expect(length > 0 && length < 20, "\(label): the output lasts \(length) s")
            #expect(try FFprobe.countFrames(out) > 0, "\(label): no frames in the output")
            if healthy {
                let expected = invocation.expectedLength(try FFprobe.probe(source).duration ?? 0)
                #expect(abs(length - expected) < 0.35, "\(label): lasts \(length) s, not \(expected) s")
            }
        }
    }
}
