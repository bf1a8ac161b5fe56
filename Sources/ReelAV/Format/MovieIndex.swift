import Foundation
package import ReelCore

/// One entry of an ISO BMFF edit list (`elst`): a span of the track's timeline and the
/// media it shows.
package struct EditListEntry: Sendable, Equatable {
    /// Where the entry starts on the track's timeline. Entries are given by their absolute
    /// start and end, so that rounding each to the movie's timescale never adds up.
    package var start: MediaTime
    package var end: MediaTime
    /// The media time shown at `start`, counted from the track's first decode time; nil
    /// for an empty edit (nothing shown).
    package var mediaStart: MediaTime?

    package init(start: MediaTime, end: MediaTime, mediaStart: MediaTime?) {
        self.start = start
        self.end = end
        self.mediaStart = mediaStart
    }
}

/// Rewrites the index (`moov`) of an MP4 or QuickTime file FFmpeg's muxer has finished:
/// sets tracks' edit lists, which the muxer can only write as one entry, and can move
/// the index in front of the media. A copy that joins clips needs an entry per clip, so
/// that what each clip's own edit list hid (frames before a cut, AAC priming, frames after
/// the end) stays hidden in the middle of the join.
package enum MovieIndex {
    private struct TopBox {
        var type: String
        var offset: UInt64
        var size: UInt64
    }

    /// A box of the index: containers are parsed, everything else kept as bytes.
    private final class Box {
        var type: String
        var body: [UInt8]
        var children: [Box]?

        init(type: String, body: [UInt8], children: [Box]?) {
            self.type = type
            self.body = body
            self.children = children
        }

        var size: Int { 8 + (children.map { $0.reduce(0) { $0 + $1.size } } ?? body.count) }

        func first(_ type: String) -> Box? { children?.first { $0.type == type } }

        func serialize(into bytes: inout [UInt8]) {
            bytes.append(contentsOf: MovieIndex.be32(UInt32(clamping: size)))
            bytes.append(contentsOf: Array(type.utf8.prefix(4)))
            if let children {
                for child in children { child.serialize(into: &bytes) }
            } else {
                bytes.append(contentsOf: body)
            }
        }
    }

    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts"]

    /// Sets the edit list of each track in `edits` (by track order, which is the muxer's
    /// stream order), its `tkhd` duration and the movie's duration, and places the index
    /// in front of the media when `indexFirst` (in the room the muxer kept there, or by
    /// rewriting the file once).
    /// - Throws: ``ReelError`` about `path` when the file is not an ISO BMFF file with an
    ///   index, a track is missing, or reading or writing fails.
    package static func rewrite(_ path: String, edits: [Int: [EditListEntry]], indexFirst: Bool) throws(ReelError) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        } catch {
            throw ReelError(.io, "cannot reopen the file to write its edit lists: \(error.localizedDescription)", subject: path)
        }
        defer { try? handle.close() }
        let top = try topLevel(handle, path: path)
        guard let moovIndex = top.firstIndex(where: { $0.type == "moov" }) else {
            throw ReelError(.invalidData, "the muxer wrote no index (moov)", subject: path)
        }
        let moovBox = top[moovIndex]
        guard moovBox.size <= 1 << 30 else { throw ReelError(.unsupported, "an index over 1 GB", subject: path) }
        let moovBytes = try read(handle, at: moovBox.offset, count: Int(moovBox.size), path: path)
        guard let moov = parse(moovBytes[...], type: "moov", headerSize: headerSize(moovBytes)) else {
            throw ReelError(.invalidData, "the index (moov) cannot be parsed", subject: path)
        }
        try setEdits(edits, in: moov, path: path)

        let firstMedia = top.firstIndex { $0.type == "mdat" }
        let inFront = firstMedia.map { moovIndex < $0 } ?? true
        if !indexFirst || inFront {
            // In place: the index is last, or free space follows it (what `moov_size` keeps).
            var bytes: [UInt8] = []
            moov.serialize(into: &bytes)
            if moovIndex == top.count - 1 {
                try write(handle, bytes, at: moovBox.offset, path: path)
                try truncate(handle, at: moovBox.offset + UInt64(bytes.count), path: path)
                return
            }
            var room = moovBox.size
            for box in top[(moovIndex + 1)...] {
                guard box.type == "free" || box.type == "skip" else { break }
                room += box.size
            }
            let spare = Int64(room) - Int64(bytes.count)
            if spare == 0 || spare >= 8 {
                if spare >= 8 {
                    bytes += be32(UInt32(clamping: spare)) + Array("free".utf8) + [UInt8](repeating: 0, count: Int(spare) - 8)
                }
                try write(handle, bytes, at: moovBox.offset, path: path)
                return
            }
        }
        try relocate(handle, path: path, top: top, moovIndex: moovIndex, moov: moov)
    }

    // MARK: - Edits

    private static func setEdits(_ edits: [Int: [EditListEntry]], in moov: Box, path: String) throws(ReelError) {
        guard let mvhd = moov.first("mvhd"), mvhd.body.count >= 32 else {
            throw ReelError(.invalidData, "the index has no movie header", subject: path)
        }
        let movieLong = mvhd.body[0] == 1
        let movieScale = Int32(clamping: u32(mvhd.body, movieLong ? 20 : 12))
        guard movieScale > 0 else { throw ReelError(.invalidData, "the movie timescale is 0", subject: path) }
        let tracks = moov.children?.filter { $0.type == "trak" } ?? []
        for (index, entries) in edits.sorted(by: { $0.key < $1.key }) where !entries.isEmpty {
            guard index < tracks.count else { throw ReelError(.invalidArgument, "there is no track \(index)", subject: path) }
            let trak = tracks[index]
            guard let mdhd = trak.first("mdia")?.first("mdhd"), mdhd.body.count >= 24,
                  let tkhd = trak.first("tkhd"), tkhd.body.count >= 36 else {
                throw ReelError(.invalidData, "track \(index) has no media or track header", subject: path)
            }
            let mediaScale = Int32(clamping: u32(mdhd.body, mdhd.body[0] == 1 ? 20 : 12))
            guard mediaScale > 0 else { throw ReelError(.invalidData, "track \(index)'s timescale is 0", subject: path) }
            var rows: [(duration: Int64, media: Int64)] = []
            for entry in entries {
                let start = entry.start.convertScale(movieScale).value, end = entry.end.convertScale(movieScale).value
                guard end > start else { continue }
                rows.append((end - start, entry.mediaStart.map { $0.convertScale(mediaScale).value } ?? -1))
            }
            let long = rows.contains { $0.duration > Int64(UInt32.max) || $0.media > Int64(Int32.max) }
            var elst: [UInt8] = [long ? 1 : 0, 0, 0, 0] + be32(UInt32(clamping: rows.count))
            for row in rows {
                if long {
                    elst += be64(UInt64(clamping: row.duration)) + be64(UInt64(bitPattern: row.media))
                } else {
                    elst += be32(UInt32(clamping: row.duration)) + be32(UInt32(bitPattern: Int32(clamping: row.media)))
                }
                elst += [0, 1, 0, 0] // rate 1.0
            }
            let edts = Box(type: "edts", body: [], children: [Box(type: "elst", body: elst, children: nil)])
            if let at = trak.children?.firstIndex(where: { $0.type == "edts" }) {
                trak.children?[at] = edts
            } else if let at = trak.children?.firstIndex(where: { $0.type == "tkhd" }) {
                trak.children?.insert(edts, at: at + 1)
            }
            let total = rows.reduce(Int64(0)) { $0 + $1.duration }
            if tkhd.body[0] == 1 {
                tkhd.body.replaceSubrange(28..<36, with: be64(UInt64(clamping: total)))
            } else {
                tkhd.body.replaceSubrange(20..<24, with: be32(UInt32(clamping: total)))
            }
        }
        // The movie lasts as long as its longest track.
        var longest: UInt64 = 0
        for trak in tracks {
            guard let tkhd = trak.first("tkhd"), tkhd.body.count >= 36 else { continue }
            longest = max(longest, tkhd.body[0] == 1 ? u64(tkhd.body, 28) : UInt64(u32(tkhd.body, 20)))
        }
        if movieLong {
            mvhd.body.replaceSubrange(24..<32, with: be64(longest))
        } else {
            mvhd.body.replaceSubrange(16..<20, with: be32(UInt32(clamping: longest)))
        }
    }

    // MARK: - Moving the index in front

    /// Writes the file again as the boxes before the first `mdat`, the index, then the rest
    /// (without free space), with every chunk offset moved to match; then replaces `path`.
    private static func relocate(_ handle: FileHandle, path: String, top: [TopBox], moovIndex: Int, moov: Box) throws(ReelError) {
        let kept = top.enumerated().filter { $0.offset != moovIndex && $0.element.type != "free" && $0.element.type != "skip" }
            .map(\.element)
        let firstMedia = kept.firstIndex { $0.type == "mdat" } ?? kept.count
        let head = Array(kept[..<firstMedia]), tail = Array(kept[firstMedia...])
        let headSize = head.reduce(UInt64(0)) { $0 + $1.size }
        let tables = (moov.children ?? []).filter { $0.type == "trak" }
            .compactMap { $0.first("mdia")?.first("minf")?.first("stbl") }
        // The offset tables as the muxer wrote them; the index's size depends on whether the
        // moved offsets need 64 bits, so settle it, then fill them in.
        let originals = tables.flatMap { ($0.children ?? []).filter { $0.type == "stco" || $0.type == "co64" } }
            .map { (box: $0, wide: $0.type == "co64", body: $0.body) }
        var moovSize = UInt64(moov.size)
        for _ in 0..<3 {
            try moveOffsets(originals, tail: tail, tailStart: headSize + moovSize, path: path)
            let size = UInt64(moov.size)
            if size == moovSize { break }
            moovSize = size
        }
        var index: [UInt8] = []
        moov.serialize(into: &index)
        let copyPath = path + ".index"
        guard FileManager.default.createFile(atPath: copyPath, contents: nil) else {
            throw ReelError(.io, "cannot create \(copyPath) to put the index first", subject: path)
        }
        do throws(ReelError) {
            let out: FileHandle
            do {
                out = try FileHandle(forWritingTo: URL(fileURLWithPath: copyPath))
            } catch {
                throw ReelError(.io, "cannot write \(copyPath): \(error.localizedDescription)", subject: path)
            }
            defer { try? out.close() }
            for box in head { try copy(handle, box, to: out, path: path) }
            try append(out, index, path: path)
            for box in tail { try copy(handle, box, to: out, path: path) }
            guard rename(copyPath, path) == 0 else {
                throw ReelError(.io, "cannot replace the file with its index-first copy: \(String(cString: strerror(errno)))",
                                subject: path, operation: "rename")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: copyPath)
            throw error
        }
    }

    /// Moves every `stco`/`co64` offset to where its box lands after `tailStart`; turns
    /// `stco` into `co64` when an offset no longer fits 32 bits.
    private static func moveOffsets(_ tables: [(box: Box, wide: Bool, body: [UInt8])], tail: [TopBox], tailStart: UInt64,
                                    path: String) throws(ReelError) {
        var places: [(old: UInt64, end: UInt64, new: UInt64)] = []
        var next = tailStart
        for box in tail {
            places.append((box.offset, box.offset + box.size, next))
            next += box.size
        }
        func moved(_ offset: UInt64) -> UInt64? {
            places.first { offset >= $0.old && offset < $0.end }.map { $0.new + offset - $0.old }
        }
        for table in tables {
            let count = Int(u32(table.body, 4))
            guard table.body.count >= 8 + count * (table.wide ? 8 : 4) else {
                throw ReelError(.invalidData, "a chunk offset table is cut short", subject: path)
            }
            var values: [UInt64] = []
            values.reserveCapacity(count)
            for i in 0..<count {
                let old = table.wide ? u64(table.body, 8 + 8 * i) : UInt64(u32(table.body, 8 + 4 * i))
                guard let new = moved(old) else {
                    throw ReelError(.invalidData, "a chunk offset \(old) points outside the media", subject: path)
                }
                values.append(new)
            }
            let wide = table.wide || values.contains { $0 > UInt64(UInt32.max) }
            table.box.type = wide ? "co64" : "stco"
            var body = Array(table.body[0..<8])
            body.reserveCapacity(8 + count * (wide ? 8 : 4))
            for value in values { body += wide ? be64(value) : be32(UInt32(value)) }
            table.box.body = body
        }
    }

    // MARK: - Bytes

    private static func parse(_ bytes: ArraySlice<UInt8>, type: String, headerSize: Int) -> Box? {
        let body = bytes.dropFirst(headerSize)
        guard containers.contains(type) else { return Box(type: type, body: Array(body), children: nil) }
        var children: [Box] = []
        var offset = body.startIndex
        while offset + 8 <= body.endIndex {
            let size32 = u32(Array(body[offset..<offset + 4]), 0)
            let childType = String(decoding: body[offset + 4..<offset + 8], as: UTF8.self)
            var size = UInt64(size32), header = 8
            if size32 == 1 {
                guard offset + 16 <= body.endIndex else { return nil }
                size = u64(Array(body[offset + 8..<offset + 16]), 0)
                header = 16
            } else if size32 == 0 {
                size = UInt64(body.endIndex - offset)
            }
            guard size >= UInt64(header), size <= UInt64(body.endIndex - offset),
                  let child = parse(body[offset..<offset + Int(size)], type: childType, headerSize: header) else { return nil }
            children.append(child)
            offset += Int(size)
        }
        return Box(type: type, body: [], children: children)
    }

    /// Whether the file at `path` is a fragmented MP4 or QuickTime file (a top-level `moof`),
    /// as a recording's `.partial` file is; false when it cannot be read.
    package static func isFragmented(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return ((try? topLevel(handle, path: path)) ?? []).contains { $0.type == "moof" }
    }

    private static func headerSize(_ bytes: [UInt8]) -> Int { bytes.count >= 4 && u32(bytes, 0) == 1 ? 16 : 8 }

    private static func topLevel(_ handle: FileHandle, path: String) throws(ReelError) -> [TopBox] {
        let length: UInt64
        do { length = try handle.seekToEnd() } catch {
            throw ReelError(.io, "cannot read the written file: \(error.localizedDescription)", subject: path)
        }
        var boxes: [TopBox] = []
        var offset: UInt64 = 0
        while offset + 8 <= length {
            let header = try read(handle, at: offset, count: Int(min(16, length - offset)), path: path)
            var size = UInt64(u32(header, 0))
            if size == 1, header.count >= 16 { size = u64(header, 8) } else if size == 0 { size = length - offset }
            guard size >= 8, size <= length - offset else {
                throw ReelError(.invalidData, "the written file has a box running past its end at \(offset)", subject: path)
            }
            boxes.append(TopBox(type: String(decoding: header[4..<8], as: UTF8.self), offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    private static func read(_ handle: FileHandle, at offset: UInt64, count: Int, path: String) throws(ReelError) -> [UInt8] {
        do {
            try handle.seek(toOffset: offset)
            let data = try handle.read(upToCount: count) ?? Data()
            guard data.count == count else { throw ReelError(.io, "the file ended early at \(offset)", subject: path) }
            return [UInt8](data)
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.io, "cannot read the written file: \(error.localizedDescription)", subject: path)
        }
    }

    private static func write(_ handle: FileHandle, _ bytes: [UInt8], at offset: UInt64, path: String) throws(ReelError) {
        do {
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw ReelError(.io, "cannot write the index: \(error.localizedDescription)", subject: path)
        }
    }

    private static func append(_ handle: FileHandle, _ bytes: [UInt8], path: String) throws(ReelError) {
        do { try handle.write(contentsOf: Data(bytes)) } catch {
            throw ReelError(.io, "cannot write the index: \(error.localizedDescription)", subject: path)
        }
    }

    private static func truncate(_ handle: FileHandle, at offset: UInt64, path: String) throws(ReelError) {
        do { try handle.truncate(atOffset: offset) } catch {
            throw ReelError(.io, "cannot end the file after its index: \(error.localizedDescription)", subject: path)
        }
    }

    private static func copy(_ handle: FileHandle, _ box: TopBox, to out: FileHandle, path: String) throws(ReelError) {
        var done: UInt64 = 0
        while done < box.size {
            let count = Int(min(UInt64(1 << 22), box.size - done))
            let bytes = try read(handle, at: box.offset + done, count: count, path: path)
            try append(out, bytes, path: path)
            done += UInt64(count)
        }
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        guard at + 8 <= bytes.count else { return 0 }
        return bytes[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
}

extension MovieIndex {
    /// Muxer options that make the movie's timescale the video's own (as the MP4 muxer
    /// will choose it: the time base's denominator, doubled up to at least 10,000), so that
    /// edit-list entries fall exactly on frame times. At the default of 1000 an entry that
    /// ends at 9.962878 s is written as 9.963 s and shows a frame the source hides.
    package static func movieTimescaleOptions(videoTimeBase: Rational, for formatName: String) -> [String: String] {
        guard ["mp4", "mov", "ipod"].contains(formatName), videoTimeBase.numerator == 1, videoTimeBase.denominator > 0 else {
            return [:]
        }
        var scale = Int(videoTimeBase.denominator)
        while scale < 10_000 { scale *= 2 }
        return ["movie_timescale": String(scale)]
    }
}
