import Foundation
import ReelTestSupport
import Testing

/// Reel Studio 2.0 (issue 18) in headless Chromium against the real `reel studio`: one
/// truth for every page, a recording that belongs to the press that started it, exports
/// that outlive their page. Each test is one of the issue's defects, as a person would
/// meet it; two pages are two browsers. `Tests/browser/studio2.py` drives them.
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the pages run against live capture; a sanitizer build cannot keep its pace"))
struct StudioTwoPageTests {
    /// - Parameter environment: variables added to the script's environment (a PulseAudio server, say).
    static func run(_ scenario: String, _ studio: StudioProcess, _ arguments: [String] = [], timeout: TimeInterval = 150,
                    environment: [String: String] = [:]) throws -> [String: Any] {
        let script = Paths.packageRoot.appendingPathComponent("Tests/browser/studio2.py").path
        let merged = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let result = try ProcessRunner.run("/usr/bin/python3", [script, scenario, studio.base] + arguments, timeout: timeout,
                                           environment: merged)
        guard result.status == 0, let line = result.standardOutput.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("studio2.py \(scenario): status \(result.status) \(result.standardError.suffix(2000))")
        }
        return json
    }

    /// Defect 1: the slider stays where it was dragged (3x) while the zoom ramps there, and keys move it from there.
    @Test func theZoomSliderStaysWhereItWasDragged() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("zoom", studio)
        let drag = try #require(result["afterDrag"] as? [String: Any]), keys = try #require(result["afterKeys"] as? [String: Any])
        let slider = try #require(drag["slider"] as? Double), camera = try #require(drag["camera"] as? Double)
        #expect(slider > 2.9 && camera > 2.9, "dragged to the right end: \(drag)")
        #expect(drag["output"] as? String == "3.0×" && drag["sameElement"] as? Bool == true, "\(drag)")
        #expect(result["focusedAfterDrag"] as? Bool == true)
        let back = try #require(keys["slider"] as? Double), backCamera = try #require(keys["camera"] as? Double)
        #expect(back < slider - 0.1, "four presses of the left arrow move it down: \(keys)")
        #expect(abs(back - backCamera) < 0.01, "and the camera follows: \(keys)")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }

    /// Defect 2: a control's change keeps keyboard focus on it; the second key press works too.
    @Test func keyboardFocusStaysOnAControlThatChanged() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("keys", studio)
        let iso = try #require(result["iso"] as? [Double])
        #expect(iso.count == 3 && iso[1] == iso[0] + 1 && iso[2] == iso[0] + 2, "two right-arrow presses: ISO \(iso)")
        #expect(result["focusKept"] as? [Bool] == [true, true], "\(result)")
    }

    /// Defect 5: a filter, the torch, the 2x chip and a preset set from outside show in the other page at once,
    /// timed from the change (the page's event, or the API call) to the other page's DOM, by the machine's clock.
    @Test func twoPagesShowTheSameState() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("twotabs", studio)
        let delays = try #require(result["delays"] as? [String: Any])
        let seconds = ["filter", "torch", "preset", "zoom"].map { delays[$0] as? Double }
        print("studio two pages: filter, torch, preset, zoom shown in the other page after "
              + "\(seconds.map { $0.map { String(format: "%.3f", $0) } ?? "never" }) s")
        #expect(seconds.allSatisfy { $0 != nil }, "every change reaches the other page: \(delays)")
        #expect(result["camera"] as? String == "PhotoEffectMono" && result["chipPressed"] as? String == "true", "\(result)")
        // Pushed through the event stream, so at once: 0.01-0.07 s on a quiet machine, 0.35 s for
        // one change at load 35 (two cores); a page that polled each second would fail this.
        expectInRealTime { #expect(seconds.allSatisfy { ($0 ?? 1) < 0.5 }, "\(delays)") }
    }

    /// Defect 3: quick taps record nothing and say "Hold to record".
    @Test func tapsRecordNothingAndSayHoldToRecord() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("taps", studio, ["6"])
        let status = try #require(result["status"] as? [String: Any])
        #expect(status["segments"] as? Int == 0 && status["recording"] as? Bool == false, "six taps: \(status)")
        let toasts = try #require(result["toasts"] as? [String])
        #expect(toasts.contains { $0.hasPrefix("Hold to record") }, "\(toasts)")
        #expect(!toasts.contains { $0.contains("/") }, "no path shown: \(toasts)")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: studio.library.path).contains { $0.hasSuffix(".mp4") })
    }

    /// Defect 4: reloading mid-recording ends the segment; recording again makes one more, attended.
    @Test func reloadingMidRecordingEndsTheSegment() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("reload", studio)
        #expect(result["recordingBefore"] as? Bool == true)
        // "Not recording" comes once the segment's file is finished (slow on a loaded machine);
        // where the segment ends is what counts.
        let stopped = try #require(result["stoppedAfter"] as? Double, "still recording 10 s after the reload: \(result)")
        let later = try #require(result["later"] as? [String: Any])
        let ends = try #require(later["segmentEnds"] as? [Double])
        let heldBefore = try #require(result["heldBeforeReload"] as? Double)
        print("studio reload: held \(heldBefore) s, then reloaded: not recording after \(stopped) s; segments end at \(ends)")
        #expect(later["recording"] as? Bool == false && ends.count == 2, "\(later)")
        // The first segment ends within 500 ms of the page going.
        #expect(ends.first.map { $0 < heldBefore + 0.5 } == true, "held \(heldBefore) s, the segment lasts \(ends)")
        // The second, held 1 s: as long as the press lasted, measured around the browser's
        // press and release (a loaded machine's browser holds it longer than asked).
        let heldAgain = try #require(result["heldAgain"] as? Double)
        #expect(
            ends.count == 2 && ends[1] - ends[0] > 0.5 && ends[1] - ends[0] < heldAgain + 0.5,
            "the second, held \(heldAgain) s: \(ends)")
    }

    /// Defect 7: another page's press and release leave this page's recording alone.
    @Test func anotherPagesPressDoesNotStopMyRecording() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("steal", studio)
        let during = try #require(result["during"] as? [String: Any])
        #expect(during["recording"] as? Bool == true, "still recording after the other page's press: \(during)")
        #expect(result["stillLooksHeld"] as? Bool == true)
        #expect(result["otherButtonDisabled"] as? Bool == true, "the other page's button waits: \(result)")
        #expect(result["stoppedAfterRelease"] as? Double != nil, "this page's release ends it: \(result)")
        let after = try #require(result["after"] as? [String: Any])
        #expect(after["segments"] as? Int == 1, "\(after)")
    }

    /// Defect 6: the limit's save and review happen in the recording page only, with no error anywhere.
    @Test func theLimitSavesOnceInTheRecordingPage() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try Self.run("limit", studio)
        let review = try #require(result["review"] as? Double, "the recording page's review: \(result)")
        #expect(abs(review - 15) < 0.2)
        #expect(result["otherReview"] as? Bool == false)
        let a = try #require(result["toastsA"] as? [String]), b = try #require(result["toastsB"] as? [String])
        #expect(b.isEmpty, "the other page stays quiet: \(b)")
        #expect(!(a + b).contains { $0.contains("/") || $0.contains("nothing recorded") }, "\(a) \(b)")
        #expect((result["library"] as? [String])?.count == 1, "\(result)")
    }

    /// Defects 8 and 9: an export goes on when its page goes; coming back shows its choices,
    /// progress and result, which scrolls into view and plays without sound.
    @Test func anExportOutlivesItsPage() throws {
        guard BrowserPlayer.available else { return }
        let library = try Paths.temporaryDirectory("reel-studio-export")
        for (name, source) in [("Long A.mp4", "testsrc2"), ("Long B.mp4", "smptebars")] {
            try ProcessRunner.ffmpeg(["-f", "lavfi", "-i", "\(source)=size=640x360:rate=30:duration=40", "-f", "lavfi", "-i",
                                      "sine=f=440:d=40", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                                      library.appendingPathComponent(name).path])
        }
        let studio = try StudioProcess(arguments: ["--mic", "none"], library: library)
        let result = try Self.run("export", studio, ["Long A.mp4", "Long B.mp4"])
        let seen = try #require(result["seen"] as? [String: Any])
        // Two 40 s clips exported at 1080p take longer than leaving and coming back (two 12 s ones
        // did not, from an optimised build).
        try #require(seen["job"] as? String == "exporting", "the export ended before the page came back: \(seen)")
        #expect(seen["order"] as? [String] == ["Long A.mp4", "Long B.mp4"], "the choices come back: \(seen)")
        #expect((seen["status"] as? String)?.hasPrefix("Exporting") == true, "its progress shows: \(seen)")
        #expect(seen["exportDisabled"] as? Bool == true, "no second export while one runs: \(seen)")
        #expect(result["result"] as? String != nil, "the result shows on the page that came back: \(result)")
        let shown = try #require(result["shown"] as? [String: Any])
        let top = try #require(shown["top"] as? Double), bottom = try #require(shown["bottom"] as? Double)
        let viewport = try #require(shown["viewport"] as? Double)
        #expect(top >= 0 && bottom <= viewport, "the result is in view: \(shown)")
        #expect(shown["muted"] as? Bool == true || shown["paused"] as? Bool == true, "no sound unasked: \(shown)")
    }
}

/// Reel Studio 2.0's words, layouts and accessibility basics (issue 18, defects 10-15).
@Suite(.serialized, .disabled(if: Sanitizer.slowsRealTime, "the pages run against live capture; a sanitizer build cannot keep its pace"))
struct StudioPageLayoutTests {
    /// Defect 11: at 320 px (and 250) every camera button is on screen, no chip covers the picture's
    /// middle, and no page scrolls sideways.
    @Test func narrowScreensReflow() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"], library: try StudioPageTests.makeLibrary())
        let result = try StudioTwoPageTests.run("narrow", studio)
        for width in ["320", "250"] {
            let page = try #require(result[width] as? [String: Any])
            let buttons = try #require(page["buttons"] as? [String: [String: Any]])
            for (id, box) in buttons { #expect(box["inside"] as? Bool == true, "\(width) px: \(id) at \(box)") }
            #expect(page["scroll"] as? Int == 0, "\(width) px scrolls sideways: \(page)")
            // The chips and badges on the picture keep clear of its middle (an earlier camera's covered the small preview).
            #expect((page["covering"] as? [Any])?.isEmpty == true && page["chips"] as? Int ?? 0 >= 5, "\(width) px: \(page)")
            #expect(result["gallery-\(width)"] as? Int == 0 && result["compose-\(width)"] as? Int == 0, "\(result)")
        }
    }

    /// Defect 10: the compose rows at 390 px keep their names readable, clear of the buttons.
    @Test func phoneComposeRowsDoNotOverlap() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"], library: try StudioPageTests.makeLibrary())
        let rows = try #require(try StudioTwoPageTests.run("phonecompose", studio)["rows"] as? [[String: Any]])
        #expect(rows.count == 4)
        for row in rows {
            #expect((row["nameWidth"] as? Double ?? 0) >= 100 && row["overlaps"] as? Bool == false, "\(row)")
        }
    }

    /// Defects 12 and 13: presets say what they record at most; slow motion says it changed the preset.
    @Test func presetsAndSlowMotionSayWhatTheyDo() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try StudioTwoPageTests.run("words", studio)
        let labels = try #require(result["labels"] as? [String])
        #expect(labels.first == "Up to 1080p" && labels.allSatisfy { $0.contains("up to") || $0.hasPrefix("Up to") }, "\(labels)")
        let toasts = try #require(result["toasts"] as? [String])
        #expect(toasts.contains { $0.hasPrefix("Slow motion on") && $0.contains("preset is now up to 480p") }, "\(toasts)")
        #expect(result["presetShown"] as? String == "Up to 480p")
    }

    /// Defect 14: with the studio gone, a photo and the picture say so in words.
    @Test func aStudioThatStoppedIsSaidInWords() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"])
        let result = try StudioTwoPageTests.run("gone", studio, [String(studio.process.processIdentifier)])
        let toasts = try #require(result["toasts"] as? [String])
        #expect(toasts.contains { $0.hasPrefix("The studio is not answering") } && !toasts.contains("Failed to fetch"), "\(toasts)")
        #expect((result["previewMessage"] as? String)?.hasPrefix("The studio is not answering") == true, "\(result)")
        // The marker on the picture said Live, then Reconnecting.
        #expect(result["markerBefore"] as? String == "Live" && result["markerAfter"] as? String == "Reconnecting…", "\(result)")
    }

    /// Defect 15 and Deliver 7, from the keyboard: every control on the camera, gallery and compose
    /// pages has a name (Chromium's computed one) and is reached by Tab (a radio group once); the
    /// picture is a named region; the figures wait behind Details; Enter on the shutter takes a
    /// photo and Escape returns focus to it; Space starts a recording (announced), the next Space
    /// pauses it (announced); Escape out of the review and the gallery's viewer returns focus to
    /// what opened them; text keeps 4.5:1 against what is behind it; the export bar is a progressbar.
    @Test func accessibilityBasics() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"], library: try StudioPageTests.makeLibrary())
        let result = try StudioTwoPageTests.run("keyboard", studio)
        for page in ["camera", "gallery", "compose"] {
            let controls = try #require(result[page] as? [[String: Any]])
            #expect(controls.count >= (page == "compose" ? 8 : 12), "\(page): \(controls.count) controls")
            for control in controls {
                #expect(!(control["name"] as? String ?? "").isEmpty, "\(page): a control without a name: \(control)")
                #expect(control["reached"] as? Bool == true, "\(page): Tab never reaches \(control)")
            }
            #expect((result["\(page)Contrast"] as? [Any])?.isEmpty == true, "\(page): text below 4.5:1: \(result["\(page)Contrast"] ?? "")")
        }
        let camera = try #require(result["camera"] as? [[String: Any]])
        for id in ["shutter", "mode-photo", "last-shot", "flash-chip", "torch-chip"] {
            #expect(camera.contains { $0["id"] as? String == id }, "\(id) is not among the camera's controls")
        }
        let picture = try #require(result["pictureRole"] as? [String: Any])
        #expect(picture["role"] as? String == "region" && !(picture["name"] as? String ?? "").isEmpty, "\(picture)")
        #expect(result["previewName"] as? String == "Live preview from the camera")
        #expect((result["meter"] as? [String: Any])?["role"] as? String == "meter")
        #expect(result["figuresVisible"] as? Bool == false && result["detailsOpen"] as? Bool == false, "\(result)")
        #expect(result["photoByEnter"] as? Bool == true && result["photoClosed"] as? Bool == true)
        #expect(result["focusAfterPhoto"] as? String == "shutter")
        #expect(result["modeByArrow"] as? Bool == true)
        #expect(result["announcedStart"] as? String == "Recording" && result["pressedWhileRecording"] as? String == "true", "\(result)")
        #expect((result["announcedStop"] as? String)?.hasPrefix("Paused: 0:0") == true, "\(result)")
        #expect(result["segmentsByKeyboard"] as? Int == 1)
        #expect(result["reviewOpened"] as? Bool == true && result["focusAfterReview"] as? String == "shutter", "\(result)")
        #expect(result["viewerOpened"] as? Bool == true && result["focusBackOnOpener"] as? Bool == true, "\(result)")
        #expect(result["exportBarRole"] as? String == "progressbar")
        #expect(result["lengthShownForCut"] as? Bool == false)
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }

    /// Deliver 5: a dense grid with readable titles, a viewer with previous/next (buttons, keys, a swipe), and a delete undone.
    @Test func theGalleryStepsThroughItemsAndUndoesADelete() throws {
        guard BrowserPlayer.available else { return }
        let library = try StudioPageTests.makeLibrary()
        let studio = try StudioProcess(arguments: ["--mic", "none"], library: library)
        let result = try StudioTwoPageTests.run("gallery", studio)
        let names = try #require(result["names"] as? [String])
        let titles = try #require(result["titles"] as? [String])
        #expect(titles.count == 3 && titles.allSatisfy { $0.hasPrefix("Video · 0:02 · ") || $0.hasPrefix("Photo · ") }, "\(titles)")
        // Open the first, Next, Previous, the right arrow key, a swipe to the left.
        #expect(result["seen"] as? [String] == [names[0], names[1], names[0], names[1], names[2]], "\(result)")
        #expect((result["position"] as? String)?.hasPrefix("3 of 3") == true)
        #expect(result["undoOffered"] as? Bool == true && result["goneAfterDelete"] as? Bool == true)
        #expect(result["backInGrid"] as? Bool == true && result["backInLibrary"] as? Bool == true, "\(result)")
        #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent(names[0]).path))
        // Dense: seven or more thumbnails a row at 1366 px, three at 390, two at 320; titles whole, 12 px or more.
        let density = try #require(result["density"] as? [String: [String: Any]])
        for (width, least) in [("1366", 7), ("390", 3), ("320", 2)] {
            let grid = try #require(density[width])
            #expect(grid["columns"] as? Int ?? 0 >= least && grid["titlesWhole"] as? Bool == true, "\(width) px: \(grid)")
            #expect(grid["smallestFont"] as? Double ?? 0 >= 12 && grid["scroll"] as? Int == 0, "\(width) px: \(grid)")
        }
    }

    /// Screenshots of camera, recording, review, gallery and compose at 320, 390 and 1366 px
    /// in `.build/artifacts/studio` (`v2-PAGE-WIDTH.png`), for a person to look at.
    @Test func screenshotsAtThreeWidths() throws {
        guard BrowserPlayer.available else { return }
        let studio = try StudioProcess(arguments: ["--mic", "none"], library: try StudioPageTests.makeLibrary())
        let result = try StudioTwoPageTests.run("screens", studio, [StudioBrowser.artifacts.path], timeout: 240)
        let shots = try #require(result["screenshots"] as? [String])
        #expect(shots.count == 15)
        for shot in shots {
            let data = try Data(contentsOf: URL(fileURLWithPath: shot))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 10_000, "\(shot)")
        }
        let overflow = try #require(result["overflow"] as? [String: Int])
        #expect(overflow.values.allSatisfy { $0 == 0 }, "\(overflow)")
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result)")
    }
}
