import Foundation
import ReelCore

/// Reads the timing of fragmented-MP4 segments from their own boxes (ISO/IEC 14496-12):
/// the tracks from the initialization segment's `moov` (`tkhd`, `mdhd`, `hdlr`, `trex`), and
/// each media segment's samples from its `moof`s (`tfhd`, `tfdt`, `trun`). It writes nothing;
/// FFmpeg's MP4 muxer makes the boxes. Every read is bounds-checked: a short or odd box ends
/// the walk instead of trapping.
struct FragmentReader {
    struct Track: Equatable {
        var id: Int
        var mediaType: MediaType
        var timescale: Int32
        var defaultDuration: Int64 = 0
        var defaultSize: Int64 = 0
        var defaultFlags: UInt32 = 0
    }

    private(set) var tracks: [Track] = []

    /// The tracks of an initialization segment.
    init(initialization data: Data) {
        var found: [Int: Track] = [:]
        var order: [Int] = []
        for moov in Self.boxes(in: data, from: 0, to: data.count) where moov.type == "moov" {
            for child in Self.boxes(in: data, from: moov.body, to: moov.end) {
                if child.type == "trak", let track = Self.track(data, child) {
                    found[track.id] = track
                    order.append(track.id)
                } else if child.type == "mvex" {
                    for trex in Self.boxes(in: data, from: child.body, to: child.end) where trex.type == "trex" {
                        let at = trex.body + 4
                        guard let id = Self.u32(data, at), let duration = Self.u32(data, at + 8),
                            let size = Self.u32(data, at + 12), let flags = Self.u32(data, at + 16),
                            var track = found[Int(id)]
                        else { continue }
                        track.defaultDuration = Int64(duration)
                        track.defaultSize = Int64(size)
                        track.defaultFlags = flags
                        found[Int(id)] = track
                    }
                }
            }
        }
        tracks = order.compactMap { found[$0] }
    }

    /// The report of an initialization segment: every track, no times.
    func initializationReport() -> AssetSegmentReport {
        AssetSegmentReport(
            segmentType: .initialization,
            trackReports: tracks.map {
                AssetSegmentTrackReport(
                    trackID: $0.id, mediaType: $0.mediaType, earliestPresentationTimeStamp: .invalid,
                    duration: .invalid, firstVideoSampleInformation: nil)
            })
    }

    /// The report of a media segment: for each track with samples, its earliest presentation
    /// time and total duration, and for video where its first picture is.
    func report(ofSegment data: Data) -> AssetSegmentReport {
        struct Sums {
            var earliest: Int64?
            var duration: Int64 = 0
            var first: AssetSegmentReportSampleInformation?
        }
        var sums: [Int: Sums] = [:]
        for moof in Self.boxes(in: data, from: 0, to: data.count) where moof.type == "moof" {
            for traf in Self.boxes(in: data, from: moof.body, to: moof.end) where traf.type == "traf" {
                let children = Self.boxes(in: data, from: traf.body, to: traf.end)
                guard let tfhd = children.first(where: { $0.type == "tfhd" }),
                    let tfhdFlags = Self.u32(data, tfhd.body).map({ $0 & 0x00FF_FFFF }),
                    let id = Self.u32(data, tfhd.body + 4).map(Int.init),
                    let track = tracks.first(where: { $0.id == id })
                else { continue }
                var at = tfhd.body + 8
                var base = moof.offset
                if tfhdFlags & 0x1 != 0 {
                    base = Int(clamping: Self.u64(data, at) ?? 0)
                    at += 8
                }
                if tfhdFlags & 0x2 != 0 { at += 4 }
                var defaultDuration = track.defaultDuration
                var defaultSize = track.defaultSize
                var defaultFlags = track.defaultFlags
                if tfhdFlags & 0x8 != 0 {
                    defaultDuration = Int64(Self.u32(data, at) ?? 0)
                    at += 4
                }
                if tfhdFlags & 0x10 != 0 {
                    defaultSize = Int64(Self.u32(data, at) ?? 0)
                    at += 4
                }
                if tfhdFlags & 0x20 != 0 {
                    defaultFlags = Self.u32(data, at) ?? 0
                    at += 4
                }
                var decodeTime: Int64 = 0
                if let tfdt = children.first(where: { $0.type == "tfdt" }), let head = Self.u32(data, tfdt.body) {
                    decodeTime =
                        head >> 24 == 1
                        ? Int64(clamping: Self.u64(data, tfdt.body + 4) ?? 0)
                        : Int64(Self.u32(data, tfdt.body + 4) ?? 0)
                }
                var sum = sums[id] ?? Sums()
                for trun in children where trun.type == "trun" {
                    guard let head = Self.u32(data, trun.body), let count = Self.u32(data, trun.body + 4) else { continue }
                    let version = head >> 24
                    let flags = head & 0x00FF_FFFF
                    var position = trun.body + 8
                    var dataOffset = base
                    if flags & 0x1 != 0 {
                        dataOffset = base + Int(Int32(bitPattern: Self.u32(data, position) ?? 0))
                        position += 4
                    }
                    var firstFlags: UInt32?
                    if flags & 0x4 != 0 {
                        firstFlags = Self.u32(data, position)
                        position += 4
                    }
                    for index in 0..<Int(min(count, 1_000_000)) {
                        var duration = defaultDuration
                        var size = defaultSize
                        var sampleFlags = index == 0 ? firstFlags ?? defaultFlags : defaultFlags
                        var offset: Int64 = 0
                        if flags & 0x100 != 0 {
                            duration = Int64(Self.u32(data, position) ?? 0)
                            position += 4
                        }
                        if flags & 0x200 != 0 {
                            size = Int64(Self.u32(data, position) ?? 0)
                            position += 4
                        }
                        if flags & 0x400 != 0 {
                            sampleFlags = Self.u32(data, position) ?? 0
                            position += 4
                        }
                        if flags & 0x800 != 0 {
                            let raw = Self.u32(data, position) ?? 0
                            offset = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
                            position += 4
                        }
                        guard position <= trun.end else { break }
                        let shown = decodeTime + offset
                        sum.earliest = min(sum.earliest ?? shown, shown)
                        if track.mediaType == .video, sum.first == nil {
                            sum.first = AssetSegmentReportSampleInformation(
                                presentationTimeStamp: MediaTime(value: shown, timescale: track.timescale),
                                offset: dataOffset, length: Int(clamping: size),
                                isSyncSample: sampleFlags & 0x0001_0000 == 0)
                        }
                        decodeTime += duration
                        sum.duration += duration
                        dataOffset += Int(clamping: size)
                    }
                }
                sums[id] = sum
            }
        }
        return AssetSegmentReport(
            segmentType: .separable,
            trackReports: tracks.compactMap { track in
                guard let sum = sums[track.id], let earliest = sum.earliest else { return nil }
                return AssetSegmentTrackReport(
                    trackID: track.id, mediaType: track.mediaType,
                    earliestPresentationTimeStamp: MediaTime(value: earliest, timescale: track.timescale),
                    duration: MediaTime(value: sum.duration, timescale: track.timescale),
                    firstVideoSampleInformation: sum.first)
            })
    }

    // MARK: - Boxes

    struct Box {
        var type: String
        var offset: Int
        var body: Int
        var end: Int
    }

    static func boxes(in data: Data, from start: Int, to stop: Int) -> [Box] {
        var found: [Box] = []
        var offset = start
        while offset + 8 <= stop {
            guard let small = u32(data, offset) else { break }
            var size = Int(small)
            var header = 8
            if size == 1 {
                guard let large = u64(data, offset + 8), large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = stop - offset
            }
            guard size >= header, size <= stop - offset else { break }
            let base = data.startIndex + offset
            let type = String(decoding: data[(base + 4)..<(base + 8)], as: UTF8.self)
            found.append(Box(type: type, offset: offset, body: offset + header, end: offset + size))
            offset += size
        }
        return found
    }

    private static func track(_ data: Data, _ trak: Box) -> Track? {
        var id: Int?
        var timescale: Int32?
        var mediaType: MediaType?
        for child in boxes(in: data, from: trak.body, to: trak.end) {
            if child.type == "tkhd", let head = u32(data, child.body) {
                id = (u32(data, child.body + (head >> 24 == 1 ? 20 : 12))).map(Int.init)
            } else if child.type == "mdia" {
                for box in boxes(in: data, from: child.body, to: child.end) {
                    if box.type == "mdhd", let head = u32(data, box.body) {
                        let scale = u32(data, box.body + (head >> 24 == 1 ? 20 : 12)) ?? 0
                        if scale > 0, scale <= UInt32(Int32.max) { timescale = Int32(scale) }
                    } else if box.type == "hdlr", box.body + 12 <= data.count {
                        let base = data.startIndex + box.body + 8
                        switch String(decoding: data[base..<(base + 4)], as: UTF8.self) {
                        case "vide": mediaType = .video
                        case "soun": mediaType = .audio
                        default: break
                        }
                    }
                }
            }
        }
        guard let id, let timescale, let mediaType else { return nil }
        return Track(id: id, mediaType: mediaType, timescale: timescale)
    }

    static func u32(_ data: Data, _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= data.count else { return nil }
        let base = data.startIndex + offset
        return data[base..<(base + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    static func u64(_ data: Data, _ offset: Int) -> UInt64? {
        guard offset >= 0, offset + 8 <= data.count else { return nil }
        let base = data.startIndex + offset
        return data[base..<(base + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

extension FragmentReader {
    /// The RFC 6381 names of an initialization segment's sample entries, in track order:
    /// `avc1.PPCCLL` from the `avcC` box, `mp4a.40.2` for AAC LC, else the entry's four letters.
    static func codecs(ofInitialization data: Data) -> [String] {
        var names: [String] = []
        func walk(_ start: Int, _ stop: Int) {
            for box in boxes(in: data, from: start, to: stop) {
                switch box.type {
                case "moov", "trak", "mdia", "minf", "stbl": walk(box.body, box.end)
                case "stsd":
                    for entry in boxes(in: data, from: box.body + 8, to: box.end) {
                        names.append(codec(of: entry, in: data))
                    }
                default: break
                }
            }
        }
        walk(0, data.count)
        return names
    }

    private static func codec(of entry: Box, in data: Data) -> String {
        switch entry.type {
        case "avc1", "avc3":
            // A visual sample entry's fields take 78 bytes before its child boxes.
            for child in boxes(in: data, from: entry.body + 78, to: entry.end) where child.type == "avcC" {
                guard let word = u32(data, child.body) else { break }
                return entry.type + "." + String(format: "%06x", word & 0x00FF_FFFF)
            }
            return entry.type
        case "mp4a": return "mp4a.40.2"
        default: return entry.type
        }
    }
}
