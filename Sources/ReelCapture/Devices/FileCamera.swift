import Foundation
import ReelAsset
import ReelCore

/// `file:PATH` as a live camera and microphone: the file's pictures and sound at the
/// session's clock, looping at the end. Pictures are scaled to the session's size; the
/// digital zoom crops into the centre.
final class FileCamera: @unchecked Sendable {
    private static let cameras = PosixMutex<[String: FileCamera]>([:])

    private let asset: Asset
    private let loopSeconds: Double
    private let videoLock = NSLock()
    private var video: AssetReaderTrackOutput?
    private var videoReader: AssetReader?
    private var size = (width: 0, height: 0)
    private var current: SampleBuffer?
    private var upcoming: SampleBuffer?
    private var lastTime = -1.0
    private var zoomTarget: PixelBuffer?
    private let audioLock = NSLock()
    private var audio: AssetReaderTrackOutput?
    private var audioReader: AssetReader?
    private var audioBuffered: [Float] = []
    private var audioPosition: Int64 = -1

    /// The one reader of a file camera (a session's video and audio share it).
    static func shared(for device: CaptureDevice) -> FileCamera? {
        guard case .file(let path) = device.source else { return nil }
        return cameras.withLock { cameras in
            if let camera = cameras[device.uniqueID] { return camera }
            guard let asset = try? Asset(path: path) else { return nil }
            let camera = FileCamera(asset: asset)
            cameras[device.uniqueID] = camera
            return camera
        }
    }

    /// How the file's pictures are turned for display (a phone's portrait clip: `.right`).
    private let orientation: Orientation
    /// The turned picture, before it is placed in the session's frame.
    private var turned: PixelBuffer?

    private init(asset: Asset) {
        self.asset = asset
        loopSeconds = max(asset.duration.seconds, 0.04)
        orientation = asset.tracks(withMediaType: .video).first?.preferredTransform.orientation ?? .up
    }

    /// The size to decode the file's pictures at for a `width` x `height` frame: the frame's
    /// own for an unturned file; for a turned one, the stored size whose turned picture
    /// fits the frame, keeping its shape (a portrait clip in a landscape frame is pillarboxed).
    private func decodeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard orientation != .up, let track = asset.tracks(withMediaType: .video).first,
              track.naturalSize.width > 0, track.naturalSize.height > 0 else { return (width, height) }
        let swaps = orientation.swapsDimensions
        let shown = swaps ? Size(width: track.naturalSize.height, height: track.naturalSize.width) : track.naturalSize
        let scale = min(Double(width) / shown.width, Double(height) / shown.height)
        func even(_ value: Double, limit: Int) -> Int { min(limit, max(2, Int((value / 2).rounded()) * 2)) }
        let fitted = (width: even(shown.width * scale, limit: width), height: even(shown.height * scale, limit: height))
        return swaps ? (fitted.height, fitted.width) : fitted
    }

    /// Opens the file at the size the session wants, so that the first frame comes at once.
    func prepare(width: Int, height: Int) {
        videoLock.withLock { try? openVideo(width: width, height: height) }
    }

    /// The file's picture for `seconds` of capture (the frame shown then), zoomed by `zoom`.
    func render(at seconds: Double, zoom: Double, into picture: PixelBuffer) throws(ReelError) {
        try videoLock.locked { () throws(ReelError) in
            let time = seconds.truncatingRemainder(dividingBy: loopSeconds)
            let wanted = decodeSize(width: picture.width, height: picture.height)
            if video == nil || size != wanted || time < lastTime {
                try openVideo(width: wanted.width, height: wanted.height)
            }
            lastTime = time
            while true {
                if upcoming == nil { upcoming = try video?.copyNextSampleBuffer() }
                guard let next = upcoming, next.presentationTime.seconds <= time + 1e-6 else { break }
                current = next
                upcoming = nil
            }
            guard let frame = current?.pixelBuffer else {
                throw ReelError(.invalidData, "the file has no picture to show", subject: asset.url.path)
            }
            guard orientation != .up else {
                if zoom > 1.001 {
                    try zoomed(frame, by: zoom, into: picture)
                } else {
                    try picture.copyPixels(from: frame)
                }
                return
            }
            // Turned upright as a player shows the file, then centred in the frame.
            let upright = try frame.oriented(orientation)
            if zoom > 1.001 {
                if turned?.width != upright.width || turned?.height != upright.height {
                    turned = try PixelBuffer(width: upright.width, height: upright.height, pixelFormat: .yuv420p)
                }
                guard let turned else { return }
                try zoomed(upright, by: zoom, into: turned)
                Self.place(turned, centredIn: picture)
            } else {
                Self.place(upright, centredIn: picture)
            }
        }
    }

    /// Copies `source` (yuv420p, no larger than `target`) into the middle of `target`, black around it.
    private static func place(_ source: PixelBuffer, centredIn target: PixelBuffer) {
        target.fill(planeValues: [16, 128, 128])
        let left = max(0, (target.width - source.width) / 2) & ~1, top = max(0, (target.height - source.height) / 2) & ~1
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let rows = min(source.planes[plane].height, target.planes[plane].height - (top >> shift))
            let rowBytes = min(source.planes[plane].width, target.planes[plane].width - (left >> shift))
            guard rows > 0, rowBytes > 0 else { continue }
            source.withPlane(plane) { input, inStride in
                target.withMutablePlane(plane) { output, outStride in
                    for y in 0..<rows {
                        (output + ((top >> shift) + y) * outStride + (left >> shift))
                            .copyMemory(from: input + y * inStride, byteCount: rowBytes)
                    }
                }
            }
        }
    }

    private func openVideo(width: Int, height: Int) throws(ReelError) {
        guard let track = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.unsupported, "the file has no video track to be a camera", subject: asset.url.path)
        }
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, videoSettings: VideoOutputSettings(pixelFormat: .yuv420p, width: width,
                                                                                              height: height))
        try reader.add(output)
        try reader.startReading()
        videoReader = reader
        video = output
        size = (width, height)
        upcoming = nil
        lastTime = -1
    }

    /// The centre 1/`factor` of `frame`, scaled up into `picture`.
    private func zoomed(_ frame: PixelBuffer, by factor: Double, into picture: PixelBuffer) throws(ReelError) {
        let width = max(2, Int(Double(frame.width) / factor) & ~1), height = max(2, Int(Double(frame.height) / factor) & ~1)
        if zoomTarget?.width != width || zoomTarget?.height != height {
            zoomTarget = try PixelBuffer(width: width, height: height, pixelFormat: .yuv420p)
        }
        guard let crop = zoomTarget else { return }
        let left = (frame.width - width) / 2 & ~1, top = (frame.height - height) / 2 & ~1
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            frame.withPlane(plane) { source, sourceStride in
                crop.withMutablePlane(plane) { target, targetStride in
                    let rowBytes = crop.planes[plane].width
                    for y in 0..<crop.planes[plane].height {
                        (target + y * targetStride).copyMemory(
                            from: source + ((top >> shift) + y) * sourceStride + (left >> shift), byteCount: rowBytes)
                    }
                }
            }
        }
        try PixelScaler.scale(crop, into: picture)
    }

    /// `count` mono samples of the file's sound from sample `start` of capture (silence if it has none).
    /// - Throws: ``ReelError`` when the sound cannot be read (a damaged file): the
    ///   microphone is gone, rather than silent.
    func samples(start: Int64, count: Int, sampleRate: Int) throws(ReelError) -> [Float] {
        try audioLock.locked { () throws(ReelError) -> [Float] in
            let loop = Int64(loopSeconds * Double(sampleRate))
            let position = start % max(loop, 1)
            if audio == nil || position < audioPosition {
                try openAudio(sampleRate: sampleRate)
                audioPosition = 0
                audioBuffered = []
            }
            // Skip to `position` (the loop restarted, or the first call was late).
            while audioPosition + Int64(audioBuffered.count) < position + Int64(count), let more = try nextAudio() {
                audioBuffered += more
            }
            let skip = Int(max(0, position - audioPosition))
            if skip > 0 {
                audioBuffered.removeFirst(min(skip, audioBuffered.count))
                audioPosition += Int64(skip)
            }
            var out = Array(audioBuffered.prefix(count))
            if out.count < count { out += [Float](repeating: 0, count: count - out.count) }
            return out
        }
    }

    /// The next decoded run of sound, nil at the end of the file.
    private func nextAudio() throws(ReelError) -> [Float]? {
        guard let sample = try audio?.copyNextSampleBuffer(), let buffer = sample.audioBuffer else { return nil }
        return buffer.floatSamples(channel: 0)
    }

    /// Opens the file's sound from its start; a file without sound stays silent.
    private func openAudio(sampleRate: Int) throws(ReelError) {
        audio = nil
        guard let track = asset.tracks(withMediaType: .audio).first else { return }
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track, audioSettings: AudioOutputSettings(
            sampleFormat: .floatPlanar, sampleRate: sampleRate, channelCount: 1))
        try reader.add(output)
        try reader.startReading()
        audioReader = reader
        audio = output
    }
}

extension FileCamera: FrameSource {
    func draw(frame index: Int64, at seconds: Double, rate: Double, flash: Bool, of device: CaptureDevice,
              into picture: PixelBuffer) -> FrameOutcome {
        let controls = device.advanceControls(by: 1 / rate, scene: nil)
        do throws(ReelError) {
            try render(at: seconds, zoom: controls.zoomFactor, into: picture)
            return .drawn
        } catch {
            return .lost(error)
        }
    }
}
