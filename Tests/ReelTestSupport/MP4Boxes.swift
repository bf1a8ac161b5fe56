public import Foundation

/// A minimal reader of ISO BMFF box structure, for checking what was written.
public enum MP4Boxes {
    public struct Box: Sendable {
        public var type: String
        public var offset: Int
        public var size: Int
    }

    /// The top-level boxes, stopping at the first one that runs past the end of the data.
    public static func topLevel(_ data: Data) -> [Box] {
        var boxes: [Box] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = Int(data[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count {
                size = Int(data[offset + 8..<offset + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if size == 0 {
                size = data.count - offset
            }
            guard size >= 8, offset + size <= data.count else { break }
            boxes.append(Box(type: type, offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    /// The samples listed by the `trun` boxes inside a `moof`.
    public static func sampleCount(inFragment moof: Box, of data: Data) -> Int {
        var count = 0
        var offset = moof.offset + 8
        let end = moof.offset + moof.size
        func u32(_ at: Int) -> Int { Int(data[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
        func walk(_ start: Int, _ stop: Int) {
            var position = start
            while position + 8 <= stop {
                let size = u32(position)
                let type = String(decoding: data[position + 4..<position + 8], as: UTF8.self)
                guard size >= 8 else { return }
                if type == "traf" { walk(position + 8, position + size) }
                if type == "trun" { count += u32(position + 12) }
                position += size
            }
        }
        walk(offset, end)
        offset = end
        return count
    }
}
