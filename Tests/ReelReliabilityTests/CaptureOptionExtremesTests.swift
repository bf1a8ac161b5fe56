import Foundation
import ReelTestSupport
import Testing

/// Issue 16's numeric walk for the capture commands (`record`, `photo`, `shoot`), which the
/// walk in `HostileInputTests` leaves out: every numeric option of each, on the virtual
/// camera, with NaN, infinities, negatives, zero, 1e308, huge integers and garbage. Each run
/// is refused in one line naming the option (exit 1), or records what it was asked to; none
/// crashes, hangs or leaves a file behind.
@Suite(.serialized) struct CaptureOptionExtremesTests {
    static let values = ["nan", "inf", "-inf", "-1", "0", "-0", "1e308", "-1e308", "1e-300", "2.5", "0x10",
                         "99999999999999999999", "12abc", ""]

    /// (command, option, the arguments for a value and an output folder). `record` stops
    /// itself after half a second; `shoot` is driven by keys on a pipe (record, save).
    static let options: [(String, String, @Sendable (String, URL) -> [String])] = [
        ("record", "--fps", { v, o in ["record", "-o", o.appendingPathComponent("r.mp4").path, "--preset", "low", "--fps", v,
                                       "--max-duration", "0.5"] }),
        ("record", "--max-duration", { v, o in ["record", "-o", o.appendingPathComponent("r.mp4").path, "--preset", "low",
                                                "--max-duration", v] }),
        ("record", "--filter", { v, o in ["record", "-o", o.appendingPathComponent("r.mp4").path, "--preset", "low",
                                          "--filter", "ColorControls:saturation=\(v)", "--max-duration", "0.5"] }),
        ("photo", "--quality", { v, o in ["photo", "-o", o.appendingPathComponent("p.jpg").path, "--quality", v] }),
        ("photo", "--size", { v, o in ["photo", "-o", o.appendingPathComponent("p.jpg").path, "--size", "\(v)x\(v)"] }),
        ("photo", "--filter", { v, o in ["photo", "-o", o.appendingPathComponent("p.jpg").path,
                                         "--filter", "ColorControls:brightness=\(v)"] }),
        ("shoot", "--fps", { v, o in ["shoot", "-o", o.appendingPathComponent("s.mp4").path, "--preset", "low", "--fps", v] }),
        ("shoot", "--limit", { v, o in ["shoot", "-o", o.appendingPathComponent("s.mp4").path, "--preset", "low", "--limit", v] }),
        ("shoot", "--filter", { v, o in ["shoot", "-o", o.appendingPathComponent("s.mp4").path, "--preset", "low",
                                         "--filter", "ColorControls:contrast=\(v)"] }),
    ]

    @Test(.disabled(if: Sanitizer.slowsRealTime, "real-time capture; a sanitizer build cannot keep its pace"))
    func everyNumericCaptureOptionMeetsTheExtremes() throws {
        let folder = try Paths.temporaryDirectory("reel-capture-extremes")
        var jobs: [(String, [String])] = []
        var labels: [(String, String, URL)] = []
        for (optionIndex, (command, option, make)) in Self.options.enumerated() {
            for (valueIndex, value) in Self.values.enumerated() {
                let out = folder.appendingPathComponent("o\(optionIndex)-\(valueIndex)")
                try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
                let arguments = make(value, out)
                if command == "shoot" {
                    // Space starts a segment, a second later s saves; a refused run never reads them.
                    jobs.append(("/bin/sh", ["-c", "(sleep 0.5; printf ' '; sleep 1.2; printf s) | \"$0\" \"$@\"",
                                             Paths.reelBinary.path] + arguments))
                } else {
                    jobs.append((Paths.reelBinary.path, arguments))
                }
                labels.append(("\(command) \(option) '\(value)'", option, out))
            }
        }
        let results = ProcessRunner.runConcurrently(jobs, width: 2, timeout: 60)
        var refused = 0, worked = 0
        for (index, (label, option, out)) in labels.enumerated() {
            let result = try results[index].get()
            #expect(!result.crashed, "\(label): died of signal \(result.status): \(result.standardError.prefix(400))")
            #expect(!result.timedOut, "\(label): still running at its time limit")
            let left = try FileManager.default.contentsOfDirectory(atPath: out.path)
            if result.status == 0 {
                worked += 1
                #expect(left.count == 1, "\(label): left \(left)")
                if let file = left.first {
                    let probe = try FFprobe.probe(out.appendingPathComponent(file))
                    #expect(!probe.streams(ofType: "video").isEmpty, "\(label): \(file) has no picture")
                }
                let value = label.split(separator: "'").dropFirst().first.map(String.init) ?? ""
                #expect(!["nan", "inf", "-inf", "0x10", "12abc", ""].contains(value), "\(label): should have been refused")
                continue
            }
            refused += 1
            // (shoot prints its key legend only to a terminal: from a pipe a failure is one line.)
            let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.count == 1, "\(label): stderr is \(lines.count) lines: \(result.standardError.prefix(400))")
            #expect(result.status == 1, "\(label): exit \(result.status): \(result.standardError)")
            #expect(result.standardError.contains(option) || result.standardError.contains("ColorControls"),
                    "\(label): does not name \(option): \(result.standardError)")
            #expect(result.standardError.count < 400, "\(label): a \(result.standardError.count)-character error")
            #expect(left.isEmpty, "\(label): refused but left \(left)")
        }
        #expect(refused > worked && worked > 0, "\(refused) refused, \(worked) worked")
    }

    /// `shoot` whose keys end before a save (its input is empty): one line, exit 1, nothing
    /// left. It used to print its key legend first, two lines for one failure.
    @Test func shootWithNoKeysSaysSoInOneLine() throws {
        let folder = try Paths.temporaryDirectory("reel-shoot-no-keys")
        let result = try ProcessRunner.reel(["shoot", "-o", folder.appendingPathComponent("s.mp4").path, "--preset", "low"],
                                            timeout: 30)
        #expect(!result.crashed && !result.timedOut)
        #expect(result.status == 1, "exit \(result.status): \(result.standardError)")
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1 && result.standardError.contains("nothing saved"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
