public import Foundation
public import ReelCore

extension ImageMetadata {
    /// The EXIF `Orientation` of a still picture file: read from a JPEG's APP1 segment, a
    /// PNG's `eXIf` chunk or a WebP's `EXIF` chunk. FFmpeg decodes the stored pixels and
    /// leaves the turn to the caller; a camera's portrait JPEG is stored on its side with
    /// orientation 6 (`.right`).
    /// - Parameter url: The picture file.
    /// - Returns: How to turn the stored picture for display; nil when the file says nothing
    ///   (or is not a picture this reads).
    public static func orientation(ofPictureAt url: URL) -> Orientation? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        // EXIF sits near the start of every one of these formats.
        guard let data = try? handle.read(upToCount: 1 << 20) else { return nil }
        return orientation(of: [UInt8](data))
    }

    /// The orientation in the first megabyte of a picture file's bytes.
    static func orientation(of bytes: [UInt8]) -> Orientation? {
        guard let tiff = exifPayload(bytes), let value = orientationTag(tiff) else { return nil }
        switch value {
        case 1: return .up
        case 2: return .upMirrored
        case 3: return .down
        case 4: return .downMirrored
        case 5: return .leftMirrored
        case 6: return .right
        case 7: return .rightMirrored
        case 8: return .left
        default: return nil
        }
    }

    /// The TIFF structure of the EXIF block, by the container's layout.
    private static func exifPayload(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        func bigEndian(_ at: Int, _ count: Int) -> Int? {
            guard at >= 0, at + count <= bytes.count else { return nil }
            return bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
        }
        func littleEndian32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        func withoutExifHeader(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            slice.starts(with: Array("Exif\0\0".utf8)) ? slice.dropFirst(6) : slice
        }
        if bytes.starts(with: [0xFF, 0xD8]) {
            var index = 2
            while index + 4 <= bytes.count, bytes[index] == 0xFF {
                let marker = bytes[index + 1]
                guard marker != 0xDA, let length = bigEndian(index + 2, 2), length >= 2 else { return nil }
                let body = index + 4, end = min(bytes.count, index + 2 + length)
                if marker == 0xE1, body <= end, bytes[body..<end].starts(with: Array("Exif\0\0".utf8)) {
                    return bytes[(body + 6)..<end]
                }
                index += 2 + length
            }
            return nil
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            var index = 8
            while let length = bigEndian(index, 4), index + 12 + length <= bytes.count {
                let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
                if type == "eXIf" { return withoutExifHeader(bytes[(index + 8)..<(index + 8 + length)]) }
                if type == "IDAT" || type == "IEND" { return nil }
                index += 12 + length
            }
            return nil
        }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.count >= 12, String(decoding: bytes[8..<12], as: UTF8.self) == "WEBP" {
            var index = 12
            while let length = littleEndian32(index + 4), index + 8 + length <= bytes.count {
                let type = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
                if type == "EXIF" { return withoutExifHeader(bytes[(index + 8)..<(index + 8 + length)]) }
                index += 8 + length + length % 2
            }
        }
        return nil
    }

    /// Tag 0x0112 of the first image directory of a TIFF structure.
    private static func orientationTag(_ tiff: ArraySlice<UInt8>) -> Int? {
        let base = tiff.startIndex
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func read(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= tiff.count else { return nil }
            let field = tiff[(base + offset)..<(base + offset + count)]
            return (little ? Array(field.reversed()) : Array(field)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard read(2, 2) == 42, let directory = read(4, 4), let entries = read(directory, 2) else { return nil }
        for entry in 0..<min(entries, 1000) {
            let at = directory + 2 + entry * 12
            guard let tag = read(at, 2) else { return nil }
            if tag == 0x0112 { return read(at + 8, 2) }
        }
        return nil
    }
}
