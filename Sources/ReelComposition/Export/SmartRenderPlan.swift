public import Foundation
import ReelAV
import ReelAsset
public import ReelCore

/// Which output frames of an export can be copied from their sources untouched and which
/// must be rendered, and why: the plan of a smart render (``ExportSession/smartRender``).
///
/// An output frame is copyable when it shows one source frame as it is: one opaque layer,
/// no transform, crop or overlay over it, at normal speed, its source's picture the size of
/// the output, and the source's frames on the output's frame grid. Frames are copied a
/// group of pictures (GOP) at a time: a copied run starts on an IDR frame of its source
/// (so it decodes on its own) and holds whole GOPs, except that the last may stop early
/// where no frame after the stop is needed to decode one before it. A clip trimmed inside a
/// GOP is rendered from the cut to its next keyframe. A range is also rendered when its
/// source's codec, profile, level, size, pixel format or colour description differ from
/// the output's (those of the first copyable source, which the rendered pictures are
/// encoded to match).
public struct SmartRenderPlan: Sendable, Equatable {
    /// What happens to a range of output frames.
    public enum Action: String, Sendable, Equatable {
        /// The source's packets are copied: the frames are the source's, bit for bit.
        case copy
        /// The frames are rendered and encoded.
        case render
    }

    /// A run of output frames with one action (and, for a copy, one source).
    public struct Range: Sendable, Equatable {
        /// The first output frame (counted from 0 on the output's frame grid).
        public var firstFrame: Int
        public var frameCount: Int
        /// The output times the range shows.
        public var timeRange: MediaTimeRange
        public var action: Action
        /// Why the range is rendered; nil for a copy.
        public var reason: String?
        /// A copy's source file.
        public var source: URL?
        /// The source time of a copy's first frame (its first IDR frame).
        public var sourceStart: MediaTime?

        /// The source's video stream (demuxer index).
        var streamIndex = 0
        /// The source's packets to copy, in decode order: the first one's decode timestamp (in
        /// the stream's time base, as the demuxer reads it) and, for each, the output frame it shows.
        var firstDecodeTimestamp: Int64 = 0
        var packetFrames: [Int] = []
        /// Where each of the source's GOPs in a copy begins (indices into `packetFrames`): a copy
        /// may be cut there, as the packets before show exactly the frames before.
        var gopStarts: [Int] = []
    }

    /// The output's frame duration.
    public var frameDuration: MediaTime
    /// The output's length.
    public var duration: MediaTime
    /// The output's frames.
    public var frameCount: Int
    /// The ranges in timeline order, covering every frame once.
    public var ranges: [Range]
    /// Why nothing at all can be copied, when that is so for the whole export (a codec
    /// smart rendering does not splice, a time range, a frame-count limit…).
    public var refusal: String?

    /// The frames copied.
    public var copiedFrames: Int { ranges.filter { $0.action == .copy }.reduce(0) { $0 + $1.frameCount } }
    /// The frames rendered.
    public var renderedFrames: Int { frameCount - copiedFrames }
    /// The part of the frames rendered, 0 to 1.
    public var renderedFraction: Double { frameCount > 0 ? Double(renderedFrames) / Double(frameCount) : 1 }
    /// Whether a smart render copies anything (else the export renders as usual).
    public var copiesAnything: Bool { refusal == nil && copiedFrames > 0 }

    /// The output frames where a chunked export may start a chunk and still write what the
    /// whole smart render writes: the start of every source GOP a copy holds, and the start
    /// of every run of rendered frames (rendered ranges that touch are one encode, as the
    /// splicer writes them). Ascending, 0 first.
    var cutFrames: [Int] {
        var cuts: [Int] = []
        var previous: Action?
        for range in ranges {
            switch range.action {
            case .copy:
                cuts += (range.gopStarts.isEmpty ? [0] : range.gopStarts).map { range.firstFrame + $0 }
            case .render:
                if previous != .render { cuts.append(range.firstFrame) }
            }
            previous = range.action
        }
        return Array(Set(cuts)).sorted()
    }

    /// The plan for people: a line for the whole, a line per range, with the reason of each rendered one.
    public var lines: [String] {
        var out = [String(format: "smart render: %d of %d frames copied, %d rendered (%.1f%%)", copiedFrames, frameCount,
                          renderedFrames, renderedFraction * 100)]
        if let refusal { out.append("  everything rendered: \(refusal)") }
        for range in ranges {
            let times = String(format: "%9.3f - %9.3f s  frames %6d-%6d", range.timeRange.start.seconds, range.timeRange.end.seconds,
                               range.firstFrame, range.firstFrame + range.frameCount - 1)
            switch range.action {
            case .copy:
                out.append("  copy    \(times)  \(range.source?.lastPathComponent ?? "?") from \(String(format: "%.3f", range.sourceStart?.seconds ?? 0)) s")
            case .render:
                out.append("  render  \(times)  \(range.reason ?? "")")
            }
        }
        return out
    }

    /// Plans the smart render of what `session` exports (its composition, video composition,
    /// preset and file type).
    /// - Parameter session: The export to plan.
    /// - Returns: The plan; its ``refusal`` says why nothing is copied when that is so.
    /// - Throws: ``ReelError`` when the composition is empty or a source cannot be read.
    public static func make(for session: ExportSession) throws(ReelError) -> SmartRenderPlan {
        let plain = session.videoComposition == nil ? ExportSession.plainVideoComposition(of: session.composition) : nil
        let video = session.videoComposition ?? plain?.video ?? VideoComposition(propertiesOf: session.composition)
        let duration = session.composition.duration
        let frameDuration = video.frameDuration
        guard duration.isNumeric, duration > .zero, frameDuration.isNumeric, frameDuration > .zero else {
            throw ReelError(.invalidArgument, "the composition is empty: nothing to render", subject: "timeline")
        }
        let frames = ChunkPlan.frames(in: duration, of: frameDuration)
        let (width, height) = session.preset.outputSize(for: video.renderSize)
        var planner = Planner(composition: session.composition, video: video, frameDuration: frameDuration, frames: frames,
                              width: width, height: height)
        let whole = MediaTimeRange(start: .zero, duration: duration)
        let wholeRange = session.timeRange.intersection(whole)
        var refusal: String?
        if session.preset == .passthrough {
            refusal = "the passthrough preset copies every frame itself"
        } else if session.preset.codec != .h264 {
            refusal = "the preset encodes \(session.preset.codec.rawValue); smart render splices H.264 only"
        } else if !session.outputFileType.isISOBaseMedia {
            refusal = "a \(session.outputFileType) file; smart render writes MP4, MOV and M4V"
        } else if wholeRange != whole {
            refusal = "a time range of the composition is exported; smart render takes the whole timeline"
        } else if session.fileLengthLimit > 0 {
            refusal = "a file length limit is set"
        } else if video.customVideoCompositor != nil {
            refusal = "a custom video compositor draws every frame"
        } else if plain.map({ !$0.displayMatrix.isIdentity }) == true {
            refusal = "the pictures are turned by a display matrix"
        }
        var ranges: [Range]
        if let refusal {
            ranges = [Range(firstFrame: 0, frameCount: frames, timeRange: whole, action: .render, reason: refusal)]
        } else {
            ranges = try planner.plan(duration: duration)
        }
        return SmartRenderPlan(frameDuration: frameDuration, duration: duration, frameCount: frames, ranges: ranges,
                               refusal: refusal)
    }
}

/// What ``SmartRenderPlan/make(for:)`` works with: the composition frame by frame, and each
/// source's packets.
private struct Planner {
    let composition: MutableComposition
    let video: VideoComposition
    let frameDuration: MediaTime
    let frames: Int
    let width: Int
    let height: Int
    /// Each source read once: its coding and packets, or why it cannot be copied.
    var scans: [String: Result<SourceScan, Refusal>] = [:]
    /// The coding the output is written with: the first copyable source's.
    var reference: VideoCoding?

    struct Refusal: Error { let reason: String }

    init(composition: MutableComposition, video: VideoComposition, frameDuration: MediaTime, frames: Int, width: Int, height: Int) {
        self.composition = composition
        self.video = video
        self.frameDuration = frameDuration
        self.frames = frames
        self.width = width
        self.height = height
    }

    func time(ofFrame frame: Int) -> MediaTime { frameDuration * Int64(frame) }

    /// The first output frame that shows a source frame placed at timeline time `time`: the
    /// first at or after it, as a full render picks the latest source frame at or before each
    /// output frame's time (times within a microsecond count as equal). So a copy shows every
    /// frame exactly when a full render would.
    func frame(showing time: MediaTime) -> Int? {
        let ratio = time.seconds / frameDuration.seconds
        guard ratio.isFinite, abs(ratio) < 1e9 else { return nil }
        let slack = 1e-6 / frameDuration.seconds
        return Int((ratio - slack).rounded(.up))
    }

    /// The one segment frame `frame` shows untouched, or why there is none.
    func plainSource(ofFrame frame: Int) -> Result<CompositionTrackSegment, Refusal> {
        let time = self.time(ofFrame: frame)
        if let root = video.animationTool, Self.draws(root, at: time, parentOpacity: 1) {
            return .failure(Refusal(reason: "an overlay is drawn"))
        }
        if let subtitles = video.subtitleBurnIn, subtitles.shows(at: time) {
            return .failure(Refusal(reason: "a subtitle is burned in"))
        }
        guard let instruction = video.instruction(at: time) else {
            return .failure(Refusal(reason: "no instruction: background only"))
        }
        var drawn: [(VideoCompositionLayerInstruction, CompositionTrack, CompositionTrackSegment)] = []
        for layer in instruction.layers(showingAt: time) {
            guard let track = composition.track(withTrackID: layer.trackID),
                  let segment = track.segment(forTrackTime: time), !segment.isEmpty else { continue }
            guard layer.opacity(at: time) > 0 else { continue }
            drawn.append((layer, track, segment))
        }
        guard let (layer, track, segment) = drawn.first else { return .failure(Refusal(reason: "no picture: background only")) }
        guard drawn.count == 1 else { return .failure(Refusal(reason: "\(drawn.count) pictures mixed (a transition)")) }
        guard layer.style == nil else { return .failure(Refusal(reason: "a look, key or layer style is applied")) }
        let opacity = layer.opacity(at: time)
        guard opacity == 1 else { return .failure(Refusal(reason: String(format: "opacity %.2f", opacity))) }
        let transform = layer.transform(at: time)
        let identity = abs(transform.a - 1) < 1e-9 && abs(transform.d - 1) < 1e-9 && abs(transform.b) < 1e-9
            && abs(transform.c) < 1e-9 && abs(transform.tx) < 1e-6 && abs(transform.ty) < 1e-6
        guard identity else { return .failure(Refusal(reason: "the picture is moved, scaled or turned")) }
        if let crop = layer.cropRectangle(at: time), crop != Rect(origin: .zero, size: track.naturalSize) {
            return .failure(Refusal(reason: "the picture is cropped"))
        }
        guard segment.rate == 1 else { return .failure(Refusal(reason: String(format: "plays at %.3gx speed", segment.rate))) }
        guard Int(track.naturalSize.width.rounded()) == width, Int(track.naturalSize.height.rounded()) == height,
              Int(video.renderSize.width.rounded()) == width, Int(video.renderSize.height.rounded()) == height else {
            return .failure(Refusal(reason: "the picture is \(Int(track.naturalSize.width))x\(Int(track.naturalSize.height)), the output \(width)x\(height)"))
        }
        return .success(segment)
    }

    /// Whether `layer` or a sublayer draws anything at `time`.
    static func draws(_ layer: OverlayLayer, at time: MediaTime, parentOpacity: Double) -> Bool {
        let opacity = parentOpacity * layer.presentation(at: time).opacity
        guard opacity > 0 else { return false }
        if case .none = layer.content {} else { return true }
        return layer.sublayers.contains { draws($0, at: time, parentOpacity: opacity) }
    }

    /// Reads a source's video packets once.
    mutating func scan(_ segment: CompositionTrackSegment) -> Result<SourceScan, Refusal> {
        guard let url = segment.sourceURL else { return .failure(Refusal(reason: "no source")) }
        let key = "\(url.path)#\(segment.sourceTrackID)#\(segment.sourceImageSequenceFrameRate ?? 0)"
        if let known = scans[key] { return known }
        let result: Result<SourceScan, Refusal>
        do throws(ReelError) {
            result = .success(try SourceScan(url: url, trackID: segment.sourceTrackID,
                                             imageSequenceFrameRate: segment.sourceImageSequenceFrameRate))
        } catch {
            result = .failure(Refusal(reason: "cannot be read for copying: \(error.message)"))
        }
        scans[key] = result
        return result
    }

    /// Why `coding` cannot be copied into the output, or nil (and it becomes the reference when it is the first).
    mutating func codingRefusal(_ coding: VideoCoding, frameStep: MediaTime?) -> String? {
        guard coding.codecName == "h264" else { return "the source is \(coding.codecName); smart render splices H.264 only" }
        guard coding.x264Profile != nil else { return "profile \(coding.profileName ?? "?"), which the encoder cannot match" }
        guard coding.pixelFormat == "yuv420p" else { return "pixel format \(coding.pixelFormat), not the output's yuv420p" }
        guard coding.width == width, coding.height == height else {
            return "the source is coded \(coding.width)x\(coding.height), the output \(width)x\(height)"
        }
        // Rendered frames are made in the output's matrix (ColorMatrix's rule at its height): a
        // source tagged with another would show its copied frames in other colours. AVColorSpace:
        // 1 BT.709, 5 BT.470BG and 6 SMPTE 170M (both BT.601), 2 unspecified.
        let matrix = ColorMatrix(height: height)
        guard coding.colorSpace == 2 || (matrix == .bt709 ? [1] : [5, 6]).contains(coding.colorSpace) else {
            return "colour \(coding.colorDescription), not the \(matrix == .bt709 ? "BT.709" : "BT.601") Reel renders at \(height) lines"
        }
        if let step = frameStep, abs(step.seconds - frameDuration.seconds) > frameDuration.seconds / 100 {
            return String(format: "frame rate %.3f, not the output's %.3f", 1 / step.seconds, 1 / frameDuration.seconds)
        }
        if let reference {
            if let difference = coding.difference(from: reference) { return "\(difference) of the output (the first copied clip's)" }
        } else {
            reference = coding
        }
        return nil
    }

    mutating func plan(duration: MediaTime) throws(ReelError) -> [SmartRenderPlan.Range] {
        // Frame by frame: the reason it is rendered, or the copy it belongs to.
        var reasons = [String?](repeating: nil, count: frames)
        var plainSegments = [CompositionTrackSegment?](repeating: nil, count: frames)
        for frame in 0..<frames {
            switch plainSource(ofFrame: frame) {
            case .success(let segment): plainSegments[frame] = segment
            case .failure(let refusal): reasons[frame] = refusal.reason
            }
        }
        // Runs of frames from one segment, each planned against its source's GOPs.
        struct Copy {
            var url: URL
            var stream: Int
            var sourceStart: MediaTime
            var firstDecodeTimestamp: Int64
            var packetFrames: [Int]
            var gopStarts: [Int]
        }
        var copies = [Int: Copy]()  // by first frame
        var copyOf = [Int?](repeating: nil, count: frames)
        var frame = 0
        while frame < frames {
            guard let segment = plainSegments[frame] else {
                frame += 1
                continue
            }
            var end = frame + 1
            while end < frames, let next = plainSegments[end], next.timeMapping == segment.timeMapping,
                  next.sourceURL == segment.sourceURL, next.sourceTrackID == segment.sourceTrackID {
                end += 1
            }
            let run = frame..<end
            frame = end
            let scan: SourceScan
            switch self.scan(segment) {
            case .success(let found): scan = found
            case .failure(let refusal):
                for index in run { reasons[index] = refusal.reason }
                continue
            }
            if let refusal = codingRefusal(scan.coding, frameStep: scan.frameStep) {
                for index in run { reasons[index] = refusal }
                continue
            }
            // Each GOP's frames on the output's grid, and the longest part of it that decodes alone inside the run.
            let shift = segment.timeMapping.target.start - segment.timeMapping.source.start
            var current: Copy?
            for gop in scan.gops {
                let packets = scan.packets[gop]
                var mapped: [Int] = []
                for packet in packets {
                    guard let target = self.frame(showing: scan.timeBase.time(packet.pts) + shift) else { break }
                    mapped.append(target)
                }
                guard mapped.count == packets.count, let first = mapped.min(), run.contains(first) else {
                    if current != nil { current = nil }
                    continue
                }
                let ordered = mapped.sorted()
                let consecutive = zip(ordered, ordered.dropFirst()).allSatisfy { $1 == $0 + 1 } && ordered.first == first
                guard consecutive, packets.first?.isIDR == true, !packets.contains(where: \.discarded) else {
                    let reason = packets.first?.isIDR == true ? "the source's frames are not one per output frame here"
                        : "the source's GOP starts with no IDR frame"
                    for index in ordered where run.contains(index) && reasons[index] == nil { reasons[index] = reason }
                    current = nil
                    continue
                }
                // The longest decode-order prefix showing frames first, first + 1, … that ends inside the run.
                var take = 0
                var highest = Int.min
                for (count, target) in mapped.enumerated() {
                    highest = max(highest, target)
                    if highest == first + count, highest < run.upperBound { take = count + 1 }
                }
                guard take > 0 else {
                    current = nil
                    continue
                }
                let packetFrames = Array(mapped.prefix(take))
                if var copy = current, copy.url == scan.url, let last = copy.packetFrames.max(), last + 1 == first {
                    copy.gopStarts.append(copy.packetFrames.count)
                    copy.packetFrames += packetFrames
                    current = copy
                } else {
                    current = Copy(url: scan.url, stream: scan.stream, sourceStart: scan.timeBase.time(packets[packets.startIndex].pts),
                                   firstDecodeTimestamp: packets[packets.startIndex].dts, packetFrames: packetFrames, gopStarts: [0])
                }
                if let copy = current, let start = copy.packetFrames.min() {
                    copies[start] = copy
                    for index in packetFrames { copyOf[index] = start }
                }
                if take < packets.count { current = nil }
            }
            // What is left of the run: a trim inside a GOP, or the end of a clip past its last whole part.
            let copied = run.filter { copyOf[$0] != nil }
            for index in run where copyOf[index] == nil && reasons[index] == nil {
                if let firstCopied = copied.first, index < firstCopied {
                    reasons[index] = "the clip starts inside a GOP: rendered from the cut to the next keyframe"
                } else if copied.isEmpty {
                    reasons[index] = "no whole GOP of the source lies in this part"
                } else {
                    reasons[index] = "the clip ends inside a GOP whose frames decode out of order"
                }
            }
        }
        // Frames grouped into ranges.
        var ranges: [SmartRenderPlan.Range] = []
        var index = 0
        while index < frames {
            let start = index
            if let copyStart = copyOf[index], let copy = copies[copyStart] {
                index += copy.packetFrames.count
                let range = MediaTimeRange(start: time(ofFrame: start), end: index >= frames ? duration : time(ofFrame: index))
                ranges.append(SmartRenderPlan.Range(firstFrame: start, frameCount: index - start, timeRange: range, action: .copy,
                                                    reason: nil, source: copy.url, sourceStart: copy.sourceStart,
                                                    streamIndex: copy.stream, firstDecodeTimestamp: copy.firstDecodeTimestamp,
                                                    packetFrames: copy.packetFrames, gopStarts: copy.gopStarts))
                continue
            }
            let reason = reasons[index] ?? "not copyable"
            while index < frames, copyOf[index] == nil, (reasons[index] ?? "not copyable") == reason { index += 1 }
            let range = MediaTimeRange(start: time(ofFrame: start), end: index >= frames ? duration : time(ofFrame: index))
            ranges.append(SmartRenderPlan.Range(firstFrame: start, frameCount: index - start, timeRange: range, action: .render,
                                                reason: reason))
        }
        return ranges
    }
}

/// A source's video packets, read once (headers only are kept): what a copy needs to know.
struct SourceScan {
    struct PacketInfo {
        var pts: Int64
        var dts: Int64
        var isIDR: Bool
        var discarded: Bool
    }

    let url: URL
    let stream: Int
    let timeBase: Rational
    let coding: VideoCoding
    /// Packets in decode order.
    let packets: [PacketInfo]
    /// Each GOP's packets: from a keyframe to the next.
    let gops: [Swift.Range<Int>]
    /// The typical step between frames (the median), when there are two frames or more.
    let frameStep: MediaTime?

    init(url: URL, trackID: Int, imageSequenceFrameRate: Double? = nil) throws(ReelError) {
        let asset = try Asset(url: url, imageSequenceFrameRate: imageSequenceFrameRate)
        guard let track = asset.track(withTrackID: trackID) else {
            throw ReelError(.invalidArgument, "has no track \(trackID)", subject: url.path)
        }
        let demuxer = try Demuxer(path: url.path, probing: false, frameRate: imageSequenceFrameRate)
        let stream = track.streamIndex
        guard let coding = demuxer.videoCoding(ofStream: stream) else {
            throw ReelError(.invalidData, "track \(trackID) is not video", subject: url.path)
        }
        self.url = url
        self.stream = stream
        self.coding = coding
        timeBase = demuxer.streams[stream].timeBase
        let lengthSize = AVCConfiguration(avcC: coding.extradata)?.lengthSize ?? 0
        for index in demuxer.streams.indices { demuxer.setDiscarded(index != stream, streamIndex: index) }
        let packet = try Packet()
        var packets: [PacketInfo] = []
        var starts: [Int] = []
        while try demuxer.read(into: packet) {
            guard packet.streamIndex == stream, packet.presentationTimestamp != FFmpeg.noTimestamp else { continue }
            let dts = packet.decodeTimestamp != FFmpeg.noTimestamp ? packet.decodeTimestamp : packet.presentationTimestamp
            if packet.isKeyframe { starts.append(packets.count) }
            let idr = packet.isKeyframe && lengthSize > 0 && packet.startsIDRPicture(lengthSize: lengthSize)
            packets.append(PacketInfo(pts: packet.presentationTimestamp, dts: dts, isIDR: idr,
                                      discarded: packet.isDiscarded || packet.isCorrupt))
        }
        self.packets = packets
        if starts.first != 0 { starts.insert(0, at: 0) }
        gops = zip(starts, starts.dropFirst() + [packets.count]).compactMap { $0 < $1 ? $0..<$1 : nil }
        let sorted = packets.map(\.pts).sorted()
        let steps = zip(sorted, sorted.dropFirst()).map { $1 - $0 }.sorted()
        frameStep = steps.isEmpty ? nil : timeBase.time(steps[steps.count / 2])
    }
}
