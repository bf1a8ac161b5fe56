import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelTestSupport
import Testing

@Suite struct CompositionModelTests {
    let directory: URL

    init() throws {
        directory = try Paths.temporaryDirectory("reel-composition")
    }

    private func seconds(_ value: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: value, timescale: scale) }

    private func clip() throws -> AssetTrack {
        let url = try TestClips.rotated(0, in: directory)
        return try #require(try Asset(url: url).tracks(withMediaType: .video).first)
    }

    @Test func insertsBackToBackAndWithOverlapsLikeTheSeed() throws {
        let composition = MutableComposition()
        let a = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let b = try #require(composition.addMutableTrack(withMediaType: .video))
        #expect(a.trackID == 1 && b.trackID == 2)
        let source = try clip()  // one second
        var cursor = MediaTime.zero
        let overlap = MediaTime(value: 1, timescale: 4)
        for index in 0..<4 {
            try [a, b][index % 2].insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)), of: source, at: cursor)
            cursor = cursor + seconds(1) - overlap
        }
        // 4 clips of 1 s overlapping by 1/4 s: 3.25 s, exactly.
        #expect(composition.duration == MediaTime(value: 13, timescale: 4))
        #expect(a.segments.map(\.isEmpty) == [false, true, false])
        #expect(b.segments.first?.isEmpty == true && b.segments.first?.timeMapping.target.duration == MediaTime(value: 3, timescale: 4))

        let video = VideoComposition(propertiesOf: composition)
        #expect(video.frameDuration == MediaTime(value: 1, timescale: 25))
        #expect(video.renderSize == Size(width: 320, height: 240))
        // Regions: A alone, A+B, B alone, A+B, A alone, A+B, B alone.
        #expect(video.instructions.map(\.layerInstructions.count) == [1, 2, 1, 2, 1, 2, 1])
        #expect(video.instructions[1].layerInstructions.map(\.trackID) == [1, 2])
        #expect(video.instructions[1].timeRange == MediaTimeRange(start: MediaTime(value: 3, timescale: 4), duration: overlap))
        try video.validate(for: composition)
    }

    /// A 29.97 fps clip renders on its own grid (1001/30000 s), not at 30 fps: at 30 fps each
    /// picture showed up to a frame late (the flash at 0.5005 s at 0.5333 s, 32.8 ms after its click).
    @Test func aNTSCClipRendersOnItsOwnFrameGrid() throws {
        let kind = FlashClick(rate: (30000, 1001), sampleRate: 44100)
        let url = directory.appendingPathComponent("ntsc.mp4")
        try kind.write(to: url)
        let sequence = try ClipSequence(clips: [ClipSequence.Clip(pictureOf: try Asset(url: url))])
        #expect(sequence.videoComposition.frameDuration == MediaTime(value: 1001, timescale: 30000))
        let out = directory.appendingPathComponent("ntsc-out.mp4")
        try sequence.exportSession(preset: .mediumQuality, to: out, fileType: .mp4).exportSynchronously()
        let verdict = SyncMeter.judge(try SyncMeter.measure(out), expected: kind.events, duration: kind.pictureSeconds)
        #expect(verdict.failures().isEmpty, "\(verdict)")
        #expect(verdict.worstPlacement < 0.001 && verdict.worstOffset < 0.001, "\(verdict)")
    }

    /// Issue 14: in a 29.97 fps merge with 0.4 s dissolves (11.988 frames), clips 2 and 3
    /// started 0.4 and 0.8 ms after an output frame, so every picture of theirs showed a frame
    /// late (flash to click 32.9 ms). A clip that starts inside a transition now starts on a
    /// whole output frame, and its flashes land on the output frame that shows them.
    @Test func clipsStartingInATransitionStartOnTheOutputFrameGrid() throws {
        let kind = FlashClick(rate: (30000, 1001), sampleRate: 44100)
        let url = directory.appendingPathComponent("ntsc-merge.mp4")
        try kind.write(to: url)
        let asset = try Asset(url: url)
        let dissolve = Transition.dissolve(duration: MediaTime(value: 2, timescale: 5))
        let sequence = try ClipSequence(clips: Array(repeating: ClipSequence.Clip(pictureOf: asset), count: 3), transitions: [dissolve])
        let grid = sequence.videoComposition.frameDuration
        #expect(grid == MediaTime(value: 1001, timescale: 30000))
        for range in sequence.clipRanges {
            let frames = range.start.scaled(by: MediaTime(value: 1, timescale: 1), over: grid)
            #expect(frames.convertScale(1) == frames, "a clip starts at \(range.start.seconds) s, \(frames.seconds) frames")
        }
        // Each clip still overlaps the one before by 0.4 s, to within half a frame.
        for (before, after) in zip(sequence.clipRanges, sequence.clipRanges.dropFirst()) {
            #expect(abs((before.end - after.start).seconds - 0.4) <= grid.seconds / 2)
        }
        let out = directory.appendingPathComponent("ntsc-merge-out.mp4")
        try sequence.exportSession(preset: .mediumQuality, to: out, fileType: .mp4).exportSynchronously()
        let expected = sequence.clipRanges.flatMap { range in kind.events.map { range.start.seconds + $0 } }
        let verdict = SyncMeter.judge(try SyncMeter.measure(out), expected: expected,
                                      duration: (sequence.clipRanges.last?.end ?? .zero).seconds)
        #expect(verdict.failures().isEmpty, "\(verdict)")
        #expect(verdict.worstOffset < 0.001 && verdict.worstPlacement < 0.001, "\(verdict)")
    }

    @Test func removeAndScaleAreExact() throws {
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        let source = try clip()
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)), of: source, at: .zero)
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)), of: source, at: seconds(1))
        track.removeTimeRange(MediaTimeRange(start: MediaTime(value: 1, timescale: 2), duration: seconds(1)))
        #expect(track.timeRange.duration == seconds(1))
        #expect(track.segments.count == 2)
        #expect(track.segments[1].timeMapping.source.start == MediaTime(value: 1, timescale: 2))
        // x4 slow on the whole track: 4 s; the mapping still reads the same source.
        track.scaleTimeRange(track.timeRange, toDuration: seconds(4))
        #expect(composition.duration == seconds(4))
        #expect(track.segments[0].rate == 0.25)
        #expect(track.segments[1].timeMapping.target.start == seconds(2))
        // x5 fast.
        track.scaleTimeRange(track.timeRange, toDuration: MediaTime(value: 4, timescale: 5))
        #expect(composition.duration == MediaTime(value: 4, timescale: 5))
        #expect(abs(track.segments[0].rate - 1.25) < 1e-12)
        track.insertEmptyTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)))
        #expect(track.segments[0].isEmpty && composition.duration == MediaTime(value: 9, timescale: 5))
    }

    @Test func refusesBadInserts() throws {
        let composition = MutableComposition()
        let audio = try #require(composition.addMutableTrack(withMediaType: .audio))
        let source = try clip()
        #expect(throws: ReelError.self) {
            try audio.insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)), of: source, at: .zero)
        }
        let video = try #require(composition.addMutableTrack(withMediaType: .video))
        #expect(throws: ReelError.self) {
            try video.insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(5)), of: source, at: .zero)
        }
        #expect(throws: ReelError.self) {
            try video.insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)), of: source, at: seconds(-1))
        }
        #expect(composition.addMutableTrack(withMediaType: .video, preferredTrackID: video.trackID) == nil)
    }

    @Test func rampsInterpolateAndHold() {
        var layer = VideoCompositionLayerInstruction(trackID: 1)
        let range = MediaTimeRange(start: seconds(2), duration: seconds(2))
        layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range)
        #expect(layer.opacity(at: seconds(1)) == 1)
        #expect(layer.opacity(at: seconds(3)) == 0.5)
        #expect(layer.opacity(at: seconds(5)) == 0)
        layer.setTransformRamp(fromStart: .identity, toEnd: AffineTransform(translationX: -1280, y: 0), timeRange: range)
        #expect(layer.transform(at: MediaTime(value: 5, timescale: 2)).tx == -320)
        layer.setCropRectangle(Rect(x: 0, y: 0, width: 100, height: 100), at: seconds(4))
        #expect(layer.cropRectangle(at: seconds(3)) == nil)
        #expect(layer.cropRectangle(at: seconds(4))?.width == 100)
    }

    @Test func validationNamesTheBadInstruction() throws {
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        try track.insertTimeRange(MediaTimeRange(start: .zero, duration: seconds(1)), of: try clip(), at: .zero)
        var video = VideoComposition(propertiesOf: composition)
        video.instructions = [
            VideoCompositionInstruction(timeRange: MediaTimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 2)),
                                        layerInstructions: [VideoCompositionLayerInstruction(trackID: 1)]),
            VideoCompositionInstruction(timeRange: MediaTimeRange(start: MediaTime(value: 3, timescale: 4),
                                                                  duration: MediaTime(value: 1, timescale: 4)),
                                        layerInstructions: [VideoCompositionLayerInstruction(trackID: 9)]),
        ]
        #expect {
            try video.validate(for: composition)
        } throws: { error in
            let error = error as? ReelError
            return error?.subject == "instructions[1]" && error?.message.contains("leaving a gap after 0.5 s") == true
        }
        video.instructions[1].timeRange.start = MediaTime(value: 1, timescale: 2)
        #expect {
            try video.validate(for: composition)
        } throws: { error in
            (error as? ReelError)?.subject == "instructions[1].layerInstructions[0]"
        }
        video.instructions[1].timeRange.start = MediaTime(value: 1, timescale: 4)
        #expect {
            try video.validate(for: composition)
        } throws: { error in
            (error as? ReelError)?.message.contains("overlaps") == true
        }
    }

    @Test func stickerOpacityFollowsItsKeyframes() {
        // The seed: 0, 1, 1, 0 at 0, 0.25, 0.75, 1 of 5 s from 3 s, kept after the end.
        let sticker = OverlayLayer(content: .color(red: 1, green: 1, blue: 0), frame: Rect(x: 0, y: 0, width: 40, height: 40),
                                   opacity: 0)
        sticker.add(KeyframeAnimation(keyPath: .opacity, values: [0, 1, 1, 0], keyTimes: [0, 0.25, 0.75, 1], beginTime: 3,
                                      duration: 5, isRemovedOnCompletion: false))
        func opacity(_ s: Double) -> Double { sticker.presentation(at: MediaTime(seconds: s, preferredTimescale: 1000)).opacity }
        #expect(opacity(2) == 0)
        #expect(opacity(3) == 0)
        #expect(abs(opacity(3.625) - 0.5) < 1e-9)
        #expect(opacity(4.25) == 1 && opacity(6.75) == 1)
        #expect(opacity(8) == 0 && opacity(9) == 0)
    }
}
