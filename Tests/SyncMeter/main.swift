// reel-sync-meter: the sync suite's clip maker and judge for `make bench` (scripts/sync-bench.sh),
// the same code the tests call (ReelTestSupport's FlashClick and SyncMeter).
//
//   reel-sync-meter make OUT.mp4 [--fps 25|30000/1001] [--rate 48000] [--seconds 3] [--late S] [--long S] [--vfr] [--flash-frames N] [--held S]
//       writes a flash-and-click clip and prints its event times, comma-separated
//   reel-sync-meter judge FILE --events T,T,… --duration D [--frame-tolerant] [--loss-allowed] [--offsets]
//       prints the verdict line, then PASS or FAIL with the reasons (and with --offsets a line of
//       each found event's click-minus-flash offset in ms); exits 0 either way, 2 on an error
//   reel-sync-meter segments OUT.mp4 IN.mp4…
//       joins recorded segments as a segmented recording saves them (SegmentMerge: the video
//       copied, the sound encoded once), for the segment rows of the table
import Foundation
import ReelComposition
import ReelTestSupport

func value(_ name: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "make" where arguments.count >= 2:
        let rate = (value("--fps", in: arguments) ?? "25").split(separator: "/").compactMap { Int($0) }
        let clip = FlashClick(rate: (rate.first ?? 25, rate.count > 1 ? rate[1] : 1),
                              sampleRate: Int(value("--rate", in: arguments) ?? "") ?? 48000,
                              seconds: Int(value("--seconds", in: arguments) ?? "") ?? 3,
                              soundDelay: Double(value("--late", in: arguments) ?? "") ?? 0,
                              soundExtra: Double(value("--long", in: arguments) ?? "") ?? 0,
                              variableRate: arguments.contains("--vfr"),
                              flashLength: Int(value("--flash-frames", in: arguments) ?? "") ?? 1,
                              heldLastFrame: Double(value("--held", in: arguments) ?? "") ?? 0)
        try clip.write(to: URL(fileURLWithPath: arguments[1]))
        print(clip.events.map { String(format: "%.6f", $0) }.joined(separator: ","))
    case "judge" where arguments.count >= 2:
        let events = (value("--events", in: arguments) ?? "").split(separator: ",").compactMap { Double($0) }
        let duration = Double(value("--duration", in: arguments) ?? "") ?? 0
        let measured = try SyncMeter.measure(URL(fileURLWithPath: arguments[1]))
        let verdict = SyncMeter.judge(measured, expected: events, duration: duration)
        let failures = verdict.failures(frameTolerant: arguments.contains("--frame-tolerant"),
                                        lossAllowed: arguments.contains("--loss-allowed"))
        print(verdict)
        print(failures.isEmpty ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        if arguments.contains("--offsets") {
            print("offsets: " + verdict.offsets.map { String(format: "%.3f", $0 * 1000) }.joined(separator: ","))
        }
    case "segments" where arguments.count >= 3:
        try SegmentMerge.write(arguments.dropFirst(2).map { URL(fileURLWithPath: $0) }, to: URL(fileURLWithPath: arguments[1]))
    default:
        FileHandle.standardError.write(Data("usage: reel-sync-meter make OUT [--fps N[/D]] [--rate HZ] [--seconds N] [--late S] [--long S] [--vfr] [--flash-frames N] [--held S]\n       reel-sync-meter judge FILE --events T,… --duration D [--frame-tolerant] [--loss-allowed] [--offsets]\n       reel-sync-meter segments OUT IN…\n".utf8))
        exit(1)
    }
} catch {
    FileHandle.standardError.write(Data("reel-sync-meter: \(error)\n".utf8))
    exit(2)
}
