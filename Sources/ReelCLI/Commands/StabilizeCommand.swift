import Foundation
import ReelAsset
import ReelCapture
import ReelCore

/// `reel stabilize IN -o OUT [--strength S]`: a shaky clip steadied after the fact.
struct StabilizeCommand: Command {
    let spec = CommandSpec(
        name: "stabilize",
        abstract: "Steady a shaky clip: global motion found, the camera's path smoothed, each frame cropped 10 %, turned and moved.",
        usage: "IN -o OUT [--strength 0...1] [--crf N] [--preset NAME]  |  --bench",
        positionals: 0...1,
        options: [
            .value("output", short: "o", "OUT", help: "The file to write (.mp4, .mov, .m4v, .mkv, .webm)."),
            .value("strength", "S", help: "How long a stretch of the path is smoothed: 0 (0.1 s) to 1 (1 s each way); default 0.7."),
            .value("crf", "N", help: "Video quality, 0-51 (default 23)."),
            .value("preset", "NAME", help: "Encoder speed (default medium)."),
            .flag("json", help: "Print progress as JSON lines on stdout."),
            .flag("bench", help: "Print what live stabilization costs a 1920x1080 frame, in CPU time, and stop."),
        ],
        discussion: """
        Two passes: the first reads every frame's luma and measures how far the picture moved
        and turned from the one before (Reel's estimator, the live stabilizer's); the second
        writes each frame cropped to 90 % of its width and height, turned and moved where the
        smoothed path puts it, scaled back to its size. The sound is copied through at its own times.
        Example:
          reel stabilize shaky.mp4 -o steady.mp4 --strength 0.8
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        if arguments.flag("bench") {
            for mode in [CaptureVideoStabilizationMode.standard, .cinematic] {
                let cost = try LiveStabilizer.benchmark(width: 1920, height: 1080, frames: 150, mode: mode)
                console.print("live stabilization \(mode) 1920x1080: \(Format.number(cost.milliseconds)) CPU-ms a frame "
                              + "(motion estimate \(Format.number(cost.estimateMilliseconds)), the rest the 10 % crop, turn and scale; "
                              + "drawing the shaking, rolling camera's picture \(Format.number(cost.cameraMilliseconds)))")
            }
            return 0
        }
        guard arguments.positionals.count == 1 else { throw UsageError("'stabilize' needs IN", command: spec.name) }
        guard let outputPath = arguments.value("output") else {
            throw UsageError("'stabilize' needs -o OUT", command: spec.name)
        }
        let strength = try arguments.double("strength", in: 0...1) ?? 0.7
        let outputURL = URL(fileURLWithPath: outputPath)
        let inputPath = arguments.positionals[0]
        try OutputGuard.refuse(output: outputURL, replacing: [("the input", inputPath)])
        guard let fileType = FileType(pathExtension: outputURL.pathExtension) else {
            throw UsageError("-o must end in .mp4, .mov, .m4v, .webm or .mkv, not '\(outputPath)'", command: spec.name)
        }
        let job = try MediaCopyJob(input: inputPath, output: outputURL, fileType: fileType,
                                   quality: try arguments.double("crf", in: 0...51), preset: try MediaCopyJob.preset(arguments))
        let progress = ProgressReporter(console: console, json: arguments.flag("json"), total: job.duration, label: "stabilize")
        let index = try await Self.steady(job, strength: strength, progress: progress)
        progress.finish()
        if !arguments.flag("json") {
            let written = try Asset(url: outputURL)
            console.printError("wrote \(outputPath): \(index) frames steadied, \(Format.seconds(written.duration)), "
                               + "\(Format.bytes(written.fileSize))")
        }
        return 0
    }

    /// Both passes over `job`'s input, written by `job`: what `reel stabilize` and a
    /// composition's `clips[].stabilize` share.
    /// - Parameters:
    ///   - job: The copy of the input to its output (opened, not yet run).
    ///   - strength: 0 smooths the path over 0.1 s each way, 1 over a second.
    /// - Returns: The number of frames steadied.
    /// - Throws: ``ReelError`` from reading or writing; the output is then not left behind.
    static func steady(_ job: MediaCopyJob, strength: Double, progress: ProgressReporter) async throws(ReelError) -> Int {
        let inputPath = job.asset.url.path
        let frameRate = try Self.frameRate(of: inputPath)
        let sigma = max(1, frameRate * (0.1 + 0.9 * min(max(strength, 0), 1)) / 3)
        let corrections = try Self.corrections(of: inputPath, sigma: sigma)
        let stabilizer = LiveStabilizer(radius: 0, sigma: sigma)
        var index = 0
        try await job.run(progress: progress) { (sample) throws(ReelError) -> SampleBuffer in
            guard let picture = sample.pixelBuffer else { return sample }
            let correction = corrections[sample.presentationTime.seconds] ?? (0, 0, 0)
            index += 1
            return SampleBuffer(pixelBuffer: try stabilizer.steadied(picture, correction: correction),
                                presentationTime: sample.presentationTime, duration: sample.duration)
        }
        return index
    }

    private static func frameRate(of path: String) throws(ReelError) -> Double {
        let asset = try Asset(path: path)
        guard let track = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: path)
        }
        return track.nominalFrameRate > 0 && track.nominalFrameRate.isFinite ? min(track.nominalFrameRate, 1000) : 30
    }

    /// The first pass: each frame's correction, by its presentation time in seconds.
    private static func corrections(of path: String, sigma: Double) throws(ReelError) -> [Double: LiveStabilizer.Pose] {
        let asset = try Asset(path: path)
        guard let track = asset.tracks(withMediaType: .video).first else {
            throw ReelError(.invalidData, "has no video track", subject: path)
        }
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(
            track: track,
            videoSettings: VideoOutputSettings(pixelFormat: .yuv420p, width: Int(track.naturalSize.width) & ~1,
                                               height: Int(track.naturalSize.height) & ~1))
        try reader.add(output)
        try reader.startReading()
        let estimator = GlobalMotionEstimator()
        var times: [Double] = []
        var motions: [(dx: Double, dy: Double, angle: Double)] = []
        var previous: GlobalMotionEstimator.Signature?
        while let sample = try output.copyNextSampleBuffer() {
            guard let picture = sample.pixelBuffer, sample.presentationTime >= .zero else { continue }
            let signature = estimator.signature(of: picture)
            motions.append(previous.map { estimator.rigidMotion(from: $0, to: signature) } ?? (0, 0, 0))
            times.append(sample.presentationTime.seconds)
            previous = signature
        }
        let corrections = LiveStabilizer.corrections(for: motions, sigma: sigma)
        return Dictionary(zip(times, corrections), uniquingKeysWith: { first, _ in first })
    }
}
