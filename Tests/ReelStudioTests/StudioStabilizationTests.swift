import Foundation
import ReelTestSupport
import Testing

/// The camera page's Stabilization switch (issue 18, Deliver 6's honest words) against the
/// real `reel studio` on `virtual:handheld-camera`, in two headless Chromium pages
/// (`Tests/browser/studio_stabilization.py`): what each page shows, and the recordings
/// themselves, whose shake is measured by vidstab (``ShakeMeter``).
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the pages run against live capture; a sanitizer build cannot keep its pace"))
struct StudioStabilizationTests {
    /// A video the page saved, by its library name.
    private func video(_ result: [String: Any], _ key: String, in library: URL) throws -> URL {
        let names = try #require(result[key] as? [String], "\(key): \(result)")
        let name = try #require(names.count == 1 ? names.first : nil, "one video saved for \(key): \(names)")
        let files = FileManager.default.enumerator(at: library, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        return try #require(files.first { $0.lastPathComponent == name }, "\(name) in \(library.path)")
    }

    @Test func theSwitchSteadiesTheNextRecordingAndEveryPageShowsIt() throws {
        guard BrowserPlayer.available else { return }
        // Steadying is pixel work that a debug build does too slowly for 30 fps beside two
        // pages' previews (it dropped about half the frames): the optimised binary when there is one.
        let optimised = Paths.releaseReelBinary
        let studio = try StudioProcess(arguments: ["--mic", "none", "--camera", "virtual:handheld-camera"],
                                       binary: optimised ?? Paths.reelBinary)
        let hold = 3.0
        let result = try StudioBrowser.run(script: "studio_stabilization.py", [studio.base, String(hold)], timeout: 300)
        let initial = try #require(result["initial"] as? [String: Any])
        let start = try #require(initial["a"] as? [String: Any])
        #expect(start["checked"] as? Bool == false && start["disabled"] as? Bool == false && start["role"] as? String == "switch",
                "offered, off: \(initial)")
        #expect((start["note"] as? String)?.contains("preview") == true, "it says the preview is not steadied: \(start)")

        // One truth: the page that did not click shows each change.
        let delays = [result["onDelay"], result["offDelay"], result["midDelay"]].map { $0 as? Double }
        print("studio stabilization: the other page showed on, off, on after \(delays.map { $0.map { String(format: "%.3f", $0) } ?? "never" }) s")
        #expect(delays.allSatisfy { $0 != nil }, "\(result)")
        // Pushed through the event stream, so at once: 0.003-0.038 s in CI runs; one change of
        // the two-page test took 0.35 s at load 35, so one of the three may be that late. A page
        // that polled each second would have two of three over 0.2 s most times.
        let sorted = delays.map { $0 ?? 1 }.sorted()
        expectInRealTime { #expect(sorted[1] < 0.2 && sorted[2] < 0.5, "\(delays)") }
        let on = try #require(result["afterOn"] as? [String: Any])
        #expect((on["a"] as? [String: Any])?["checked"] as? Bool == true && (on["b"] as? [String: Any])?["checked"] as? Bool == true)
        #expect((on["control"] as? [String: Any])?["active"] as? String == "standard", "\(on)")
        let off = try #require(result["afterOff"] as? [String: Any])
        #expect((off["a"] as? [String: Any])?["checked"] as? Bool == false && (off["control"] as? [String: Any])?["active"] as? String == "off",
                "\(off)")

        // Turned on mid-recording: shown on in both pages, said to reach the next recording,
        // and the recording under way goes on as it began.
        let during = try #require(result["during"] as? [String: Any])
        #expect(during["recording"] as? Bool == true, "\(during)")
        #expect((during["control"] as? [String: Any])?["value"] as? Double == 1
                    && (during["control"] as? [String: Any])?["active"] as? String == "off", "\(during)")
        for page in ["a", "b"] {
            let shown = try #require(during[page] as? [String: Any])
            #expect(shown["checked"] as? Bool == true && (shown["note"] as? String)?.contains("next recording") == true,
                    "page \(page) while recording: \(shown)")
        }
        let released = try #require(result["afterRelease"] as? [String: Any])
        #expect((released["control"] as? [String: Any])?["active"] as? String == "standard", "in effect once it ended: \(released)")
        #expect((released["a"] as? [String: Any])?["note"] as? String != (during["a"] as? [String: Any])?["note"] as? String)

        // The files: steadied against unsteadied, by an estimator Reel does not use.
        let steadied = try video(result, "steadied", in: studio.library)
        let unsteadied = try video(result, "unsteadied", in: studio.library)
        let midway = try video(result, "changedMidway", in: studio.library)
        let shaky = try ShakeMeter.meanMotion(unsteadied), steady = try ShakeMeter.meanMotion(steadied)
        let mid = try ShakeMeter.meanMotion(midway)
        let frames = try [steadied, unsteadied, midway].map { try FFprobe.countFrames($0) }
        print("studio stabilization: \(shaky.pixels) px/frame unsteadied, \(steady.pixels) steadied "
              + "(−\(Int((1 - steady.pixels / shaky.pixels) * 100)) %), \(mid.pixels) turned on mid-recording; frames \(frames)")
        #expect(shaky.pixels > 1.5, "the handheld camera shakes: \(shaky)")
        #expect(steady.pixels < shaky.pixels * 0.5, "steadied \(steady.pixels) against \(shaky.pixels) px a frame")
        #expect(mid.pixels > shaky.pixels * 0.7, "the recording under way stayed unsteadied: \(mid.pixels) against \(shaky.pixels)")
        // Each held about 3 s at 30 fps: nothing lost to the switch (the steadied one counted
        // only from the optimised binary).
        #expect(frames[1...].allSatisfy { $0 >= Int(hold * 30 * 0.8) }, "\(frames)")
        if optimised != nil { #expect(frames[0] >= Int(hold * 30 * 0.8), "steadied: \(frames)") }
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }
}
