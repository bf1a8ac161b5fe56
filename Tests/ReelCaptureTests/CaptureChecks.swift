import Foundation
import ReelAsset
@testable import ReelCapture
import ReelCore
import Testing

/// What a recording of the virtual devices shows: each frame's counter, the flash frames'
/// times and the clicks' times.
struct CaptureChecks {
    var counters: [Int] = []
    var frameTimes: [Double] = []
    var flashes: [Double] = []
    var clicks: [Double] = []
    var audioStart: Double?
    var audioEnd = 0.0

    init(_ url: URL) throws {
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let video = AssetReaderTrackOutput(track: try #require(asset.tracks(withMediaType: .video).first))
        try reader.add(video)
        let audioTrack = asset.tracks(withMediaType: .audio).first
        let audio = audioTrack.map { AssetReaderTrackOutput(track: $0, audioSettings: AudioOutputSettings(sampleFormat: .floatPlanar)) }
        if let audio { try reader.add(audio) }
        try reader.startReading()
        while let sample = try video.copyNextSampleBuffer(), let picture = sample.pixelBuffer {
            counters.append(VirtualCamera.readCounter(picture))
            frameTimes.append(sample.presentationTime.seconds)
            if Self.isFlash(picture) { flashes.append(sample.presentationTime.seconds) }
        }
        var detector = ClickDetector()
        while let sample = try audio?.copyNextSampleBuffer() {
            if audioStart == nil { audioStart = sample.presentationTime.seconds }
            audioEnd = max(audioEnd, sample.timeRange.end.seconds)
            detector.scan(sample.audioBuffer?.floatSamples(channel: 0) ?? [], from: sample.presentationTime.seconds)
        }
        clicks = detector.clicks
    }

    /// Finds the virtual microphone's clicks (10 ms of a 1 kHz tone at 0.8) in a recording's
    /// sound: a click starts at a loud sample after at least `quiet` seconds without one.
    /// Inside a click the tone's peaks are 1 ms apart, so 20 ms of quiet tells two clicks
    /// apart however close a join brings them (two clicks less than 30 ms apart count as one,
    /// and then the nearer one is still within a frame of either flash). A longer quiet
    /// (0.2 s before) merged the click of a segment's last flash with that of the next
    /// segment's first when the join put them 167 ms apart, and the next flash looked 167 ms
    /// out of sync.
    struct ClickDetector {
        var quiet = 0.02
        var sampleRate = 48_000.0
        private(set) var clicks: [Double] = []
        private var last = -10.0

        mutating func scan(_ samples: [Float], from start: Double) {
            for (i, value) in samples.enumerated() where abs(value) > 0.3 {
                let time = start + Double(i) / sampleRate
                if time - last > quiet { clicks.append(time) }
                last = time
            }
        }
    }

    /// A flash frame is bright and even all across (the bars never are), whatever filter
    /// the recording had.
    static func isFlash(_ picture: PixelBuffer) -> Bool {
        let values = [0.1, 0.3, 0.5, 0.7, 0.9].map {
            Int(picture.element(plane: 0, x: Int(Double(picture.width) * $0), y: picture.height * 3 / 4)?[0] ?? 0)
        }
        return (values.min() ?? 0) > 190 && (values.max() ?? 0) - (values.min() ?? 0) < 12
    }

    /// Each frame's counter is one more than the last.
    var countersAreConsecutive: Bool { zip(counters, counters.dropFirst()).allSatisfy { $1 == $0 + 1 } }

    /// The counters that are not one more than the one before, for the failure message.
    var counterBreaks: [String] {
        zip(counters, counters.dropFirst()).enumerated().filter { $0.element.1 != $0.element.0 + 1 }
            .map { "frame \($0.offset + 1): \($0.element.0) → \($0.element.1)" }
    }

    /// Each flash (but one in the last moment, whose click the stop may have cut) has a
    /// click within one frame; returns the worst offset.
    func expectSync(frameDuration: Double, sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        #expect(!flashes.isEmpty, sourceLocation: sourceLocation)
        var worst = 0.0
        for flash in flashes where flash < audioEnd - 0.05 {
            let nearest = clicks.min { abs($0 - flash) < abs($1 - flash) } ?? 99
            worst = max(worst, abs(nearest - flash))
            #expect(abs(nearest - flash) <= frameDuration + 0.001, "flash \(flash) s, nearest click \(nearest) s",
                    sourceLocation: sourceLocation)
        }
        return worst
    }
}

extension CaptureDevice {
    /// A virtual camera of the test's own, so that no suite sees another's settings
    /// (the shared `virtual:camera` keeps its format and controls between uses).
    static func testCamera(width: Int? = nil, name: String = "Test camera") -> CaptureDevice {
        let camera = CaptureDevice(uniqueID: "virtual:camera", localizedName: name, deviceType: .camera, position: .back,
                                   formats: virtualCameraFormats, source: .virtualCamera, capabilities: .all)
        if let width { camera.activeFormat = camera.formats.first { $0.width == width } }
        return camera
    }
}
