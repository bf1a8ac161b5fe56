import Foundation
import ReelTestSupport
import Testing

/// The camera page's shutter keeps each recording with the press that started it (issue 18):
/// a recording started with Space ends at the next key press, not at a pointer's release; one
/// a pointer holds ends at that pointer's release, not at a key press; and a keyboard start
/// that never reached the studio leaves nothing behind that would keep the next pointer's
/// release from ending its recording. `Tests/browser/studio_presses.py` drives the page.
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the pages run against live capture; a sanitizer build cannot keep its pace"))
struct StudioShutterPressTests {
    @Test func eachRecordingEndsOnlyWithThePressThatStartedIt() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try StudioBrowser.run(script: "studio_presses.py", [studio.base], timeout: 150)
        let keyFirst = try #require(result["keyThenPointer"] as? [String: Any])
        #expect(keyFirst["started"] as? Double != nil, "Space starts: \(keyFirst)")
        #expect(keyFirst["afterPointer"] as? Bool == true, "a pointer's press and release leave it recording: \(keyFirst)")
        #expect(keyFirst["pausedByKey"] as? Double != nil, "the next Space pauses: \(keyFirst)")

        let pointerFirst = try #require(result["pointerThenKey"] as? [String: Any])
        #expect(pointerFirst["started"] as? Double != nil, "\(pointerFirst)")
        #expect(pointerFirst["afterKey"] as? Bool == true && pointerFirst["stillLooksHeld"] as? Bool == true,
                "Space leaves the pointer's recording alone: \(pointerFirst)")
        #expect(pointerFirst["pausedByRelease"] as? Double != nil, "the pointer's release pauses: \(pointerFirst)")

        let refused = try #require(result["refusedKeyThenPointer"] as? [String: Any])
        let blocked = try #require(refused["refused"] as? [String: Any])
        #expect(blocked["recording"] as? Bool == false && blocked["looksHeld"] as? Bool == false, "\(refused)")
        #expect(refused["started"] as? Double != nil, "\(refused)")
        let paused = refused["pausedByRelease"] as? Double
        #expect(paused != nil, "the pointer's release after a refused keyboard start pauses: \(refused)")
        expectInRealTime { #expect((paused ?? 10) < 2.5, "\(refused)") }
        let status = try #require(result["status"] as? [String: Any])
        #expect(status["recording"] as? Bool == false && status["segments"] as? Int == 3, "three segments, none left running: \(status)")
    }
}
