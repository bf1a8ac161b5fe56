import Foundation
import ReelCore

/// Builds the EXIF block (a little-endian TIFF structure) for ``ImageMetadata`` and puts
/// it into encoded JPEG and PNG bytes.
enum ExifEncoder {
    private enum Value {
        case ascii(String)
        case short(UInt16)
        case long(UInt32)
    }

    /// The TIFF bytes: IFD0 (make, model, orientation, software, date) and the Exif IFD
    /// (original date, flash, pixel dimensions).
    static func tiff(_ metadata: ImageMetadata) -> [UInt8] {
        let date = metadata.date.map(exifDate)
        var main: [(UInt16, Value)] = []
        if let make = metadata.make { main.append((0x010F, .ascii(make))) }
        if let model = metadata.model { main.append((0x0110, .ascii(model))) }
        main.append((0x0112, .short(metadata.exifOrientation)))
        if let software = metadata.software { main.append((0x0131, .ascii(software))) }
        if let date { main.append((0x0132, .ascii(date))) }
        var exif: [(UInt16, Value)] = []
        if let date { exif.append((0x9003, .ascii(date))) }
        exif.append((0x9209, .short(metadata.exifFlash)))
        exif.append((0xA002, .long(UInt32(metadata.width))))
        exif.append((0xA003, .long(UInt32(metadata.height))))

        // Layout: header, IFD0 and its values, then the Exif IFD and its values. IFD0's
        // length does not depend on the pointer's value, so one trial run places it.
        let header: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        let exifOffset = header.count + ifd(main + [(0x8769, .long(0))], at: 8).count
        var bytes = header + ifd(main + [(0x8769, .long(UInt32(exifOffset)))], at: 8)
        bytes += ifd(exif, at: exifOffset)
        return bytes
    }

    /// One IFD at `offset` in the TIFF, with its out-of-line values after it.
    private static func ifd(_ entries: [(UInt16, Value)], at offset: Int) -> [UInt8] {
        let sorted = entries.sorted { $0.0 < $1.0 }
        var table: [UInt8] = le16(UInt16(sorted.count))
        var extra: [UInt8] = []
        let valuesStart = offset + 2 + sorted.count * 12 + 4
        for (tag, value) in sorted {
            table += le16(tag)
            switch value {
            case .ascii(let text):
                let data = Array(text.utf8) + [0]
                table += le16(2) + le32(UInt32(data.count))
                if data.count <= 4 {
                    table += data + [UInt8](repeating: 0, count: 4 - data.count)
                } else {
                    table += le32(UInt32(valuesStart + extra.count))
                    extra += data
                    if extra.count % 2 == 1 { extra.append(0) }
                }
            case .short(let number):
                table += le16(3) + le32(1) + le16(number) + [0, 0]
            case .long(let number):
                table += le16(4) + le32(1) + le32(number)
            }
        }
        table += le32(0)
        return table + extra
    }

    private static func exifDate(_ date: Date) -> String {
        let calendar = Calendar(identifier: .gregorian)
        let parts = calendar.dateComponents(in: TimeZone.current, from: date)
        func two(_ value: Int?) -> String {
            let v = value ?? 0
            return v < 10 ? "0\(v)" : "\(v)"
        }
        return "\(parts.year ?? 1970):\(two(parts.month)):\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }

    /// `jpeg` with an APP1 Exif segment after its JFIF header.
    static func insert(_ metadata: ImageMetadata, intoJPEG jpeg: [UInt8]) -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        var position = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count > 6 { position = 4 + Int(jpeg[4]) << 8 + Int(jpeg[5]) }
        let payload = Array("Exif".utf8) + [0, 0] + tiff(metadata)
        let length = payload.count + 2
        guard length <= 0xFFFF, position <= jpeg.count else { return jpeg }
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Array(jpeg[..<position]) + segment + Array(jpeg[position...])
    }

    /// `png` with an `eXIf` chunk after its header chunk.
    static func insert(_ metadata: ImageMetadata, intoPNG png: [UInt8]) -> [UInt8] {
        let headerEnd = 8 + 25
        guard png.count > headerEnd, Array(png[12..<16]) == Array("IHDR".utf8) else { return png }
        let data = tiff(metadata)
        let typeAndData = Array("eXIf".utf8) + data
        let chunk = be32(UInt32(data.count)) + typeAndData + be32(crc32(typeAndData))
        return Array(png[..<headerEnd]) + chunk + Array(png[headerEnd...])
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    /// The PNG chunk checksum (CRC-32, ISO 3309).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    private static func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) } }
}
