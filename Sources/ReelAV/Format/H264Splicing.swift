import CFFmpeg
package import ReelCore

/// What a smart render compares between a source's video stream and the output it would be
/// copied into: codec, profile, level, size, pixel format and colour description, and the
/// codec set-up data (an `avcC` box for H.264 in MP4).
package struct VideoCoding: Sendable, Equatable {
    /// FFmpeg's codec name (`h264`, `hevc`…).
    package var codecName: String
    package var profile: Int32
    /// `avcodec_profile_name`: `High`, `Main`, `Constrained Baseline`…
    package var profileName: String?
    /// `level_idc` (40 is level 4.0), or -99 when unknown.
    package var level: Int32
    package var width: Int
    package var height: Int
    /// FFmpeg's pixel-format name (`yuv420p`).
    package var pixelFormat: String
    /// The colour description as FFmpeg numbers it (`AVColorPrimaries`, `AVColorTransferCharacteristic`,
    /// `AVColorSpace`, `AVColorRange`); 2 (or 0 for the range) is unspecified.
    package var colorPrimaries: Int32
    package var colorTransfer: Int32
    package var colorSpace: Int32
    package var colorRange: Int32
    /// The codec set-up data as stored (`avcC` for H.264 in MP4).
    package var extradata: [UInt8]

    /// The colour description for a person: `bt709/bt709/bt709 tv`, `unspecified…`.
    package var colorDescription: String {
        func name(_ text: UnsafePointer<CChar>?) -> String { FFmpeg.string(text) ?? "unspecified" }
        return "\(name(av_color_primaries_name(AVColorPrimaries(rawValue: UInt32(bitPattern: colorPrimaries)))))/"
            + "\(name(av_color_transfer_name(AVColorTransferCharacteristic(rawValue: UInt32(bitPattern: colorTransfer)))))/"
            + "\(name(av_color_space_name(AVColorSpace(rawValue: UInt32(bitPattern: colorSpace))))) "
            + name(av_color_range_name(AVColorRange(rawValue: UInt32(bitPattern: colorRange))))
    }

    /// The level as people write it: `4.0`, `3.1`.
    package var levelName: String { level > 0 ? "\(level / 10).\(level % 10)" : "unknown" }

    /// The x264 profile option that writes this profile, or nil when x264 cannot (a 10-bit or 4:4:4 profile).
    package var x264Profile: String? {
        switch profileName?.lowercased() {
        case "high": "high"
        case "main": "main"
        case "baseline", "constrained baseline": "baseline"
        default: nil
        }
    }

    /// The first way `other` differs from these parameters, for a person, or nil when they
    /// agree on everything a decoder is set up with (the set-up data itself aside).
    package func difference(from other: VideoCoding) -> String? {
        if codecName != other.codecName { return "codec \(codecName), not \(other.codecName)" }
        if profile != other.profile { return "profile \(profileName ?? "\(profile)"), not \(other.profileName ?? "\(other.profile)")" }
        if level != other.level { return "level \(levelName), not \(other.levelName)" }
        if width != other.width || height != other.height {
            return "size \(width)x\(height), not \(other.width)x\(other.height)"
        }
        if pixelFormat != other.pixelFormat { return "pixel format \(pixelFormat), not \(other.pixelFormat)" }
        if colorPrimaries != other.colorPrimaries || colorTransfer != other.colorTransfer || colorSpace != other.colorSpace
            || colorRange != other.colorRange {
            return "colour \(colorDescription), not \(other.colorDescription)"
        }
        return nil
    }
}

extension Demuxer {
    /// The coding parameters of video stream `index`, or nil when there is no such stream.
    package func videoCoding(ofStream index: Int) -> VideoCoding? {
        guard let parameters = codecParameters(ofStream: index)?.pointee, parameters.codec_type == AVMEDIA_TYPE_VIDEO else {
            return nil
        }
        var extradata: [UInt8] = []
        if let data = parameters.extradata, parameters.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(parameters.extradata_size)))
        }
        var profile = parameters.profile, level = parameters.level
        var pixelFormat = FFmpeg.string(av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format)))
        // Read without probing, an MP4's H.264 stream says its profile and level only in its
        // avcC box (profile_idc, constraint flags, level_idc); 66, 77, 88 and 100 are 8-bit 4:2:0.
        if parameters.codec_id == AV_CODEC_ID_H264, extradata.count >= 4, extradata[0] == 1 {
            if profile < 0 {
                let constrained: Int32 = extradata[1] == 66 && extradata[2] & 0x40 != 0 ? FF_PROFILE_H264_CONSTRAINED : 0
                profile = Int32(extradata[1]) | constrained
            }
            if level < 0 { level = Int32(extradata[3]) }
            if pixelFormat == nil, [66, 77, 88, 100].contains(extradata[1]) { pixelFormat = "yuv420p" }
        }
        return VideoCoding(
            codecName: FFmpeg.string(avcodec_get_name(parameters.codec_id)) ?? "unknown",
            profile: profile,
            profileName: FFmpeg.string(avcodec_profile_name(parameters.codec_id, profile)),
            level: level, width: Int(parameters.width), height: Int(parameters.height),
            pixelFormat: pixelFormat ?? "unknown",
            colorPrimaries: Int32(bitPattern: parameters.color_primaries.rawValue),
            colorTransfer: Int32(bitPattern: parameters.color_trc.rawValue),
            colorSpace: Int32(bitPattern: parameters.color_space.rawValue),
            colorRange: Int32(bitPattern: parameters.color_range.rawValue),
            extradata: extradata)
    }
}

/// H.264's parameter sets and NAL units as an MP4 stores them: each NAL unit behind its
/// length (1, 2 or 4 bytes, as the `avcC` box says), the sequence and picture parameter
/// sets in the `avcC` box. What splicing separately encoded pictures into a copied stream
/// needs: which packets start with an IDR picture, the parameter sets each part was coded
/// with, and the conversion of an encoder's Annex B output (start codes) to lengths.
package struct AVCConfiguration: Sendable, Equatable {
    /// Bytes of each NAL unit's length in a sample.
    package var lengthSize: Int
    /// Sequence parameter sets (NAL type 7), then picture parameter sets (NAL type 8), each without a length.
    package var parameterSets: [[UInt8]]

    /// The configuration in an `avcC` box's payload, or nil when `avcC` is not one (an
    /// Annex B stream's set-up data, say).
    package init?(avcC bytes: [UInt8]) {
        guard bytes.count >= 7, bytes[0] == 1 else { return nil }
        lengthSize = Int(bytes[4] & 3) + 1
        guard lengthSize != 3 else { return nil }
        var sets: [[UInt8]] = []
        var offset = 5
        for kind in 0..<2 {
            guard offset < bytes.count else { return nil }
            let count = kind == 0 ? Int(bytes[offset] & 0x1F) : Int(bytes[offset])
            offset += 1
            for _ in 0..<count {
                guard offset + 2 <= bytes.count else { return nil }
                let size = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                offset += 2
                guard size > 0, offset + size <= bytes.count else { return nil }
                sets.append(Array(bytes[offset..<offset + size]))
                offset += size
            }
        }
        parameterSets = sets
    }

    /// The configuration of an encoder's Annex B set-up data (start code, NAL, start code…),
    /// with 4-byte lengths.
    package init(annexB bytes: [UInt8]) {
        lengthSize = 4
        parameterSets = Self.annexBUnits(bytes).filter { [7, 8].contains(($0.first ?? 0) & 0x1F) }
    }

    /// The NAL units of Annex B data, without their start codes.
    package static func annexBUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var starts: [(codeStart: Int, dataStart: Int)] = []
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                let codeStart = index > 0 && bytes[index - 1] == 0 ? index - 1 : index
                starts.append((codeStart, index + 3))
                index += 3
            } else {
                index += 1
            }
        }
        var units: [[UInt8]] = []
        for (number, start) in starts.enumerated() {
            var end = number + 1 < starts.count ? starts[number + 1].codeStart : bytes.count
            while end > start.dataStart, bytes[end - 1] == 0 { end -= 1 }  // trailing zero bytes belong to no unit
            if end > start.dataStart { units.append(Array(bytes[start.dataStart..<end])) }
        }
        return units
    }

    /// `units`, each behind its length in ``lengthSize`` bytes.
    package func lengthPrefixed(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + lengthSize })
        for unit in units {
            for shift in stride(from: 8 * (lengthSize - 1), through: 0, by: -8) { out.append(UInt8((unit.count >> shift) & 0xFF)) }
            out += unit
        }
        return out
    }
}

extension Packet {
    /// The bytes of the packet's payload.
    package var payload: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// The H.264 NAL unit types of a length-prefixed payload, in order (5 is an IDR slice,
    /// 1 another slice, 7 and 8 parameter sets, 6 SEI); stops at a length that runs past the end.
    package func nalUnitTypes(lengthSize: Int) -> [UInt8] {
        guard let data = pointer.pointee.data, lengthSize > 0 else { return [] }
        let size = Int(pointer.pointee.size)
        var types: [UInt8] = []
        var offset = 0
        while offset + lengthSize < size {
            var length = 0
            for byte in 0..<lengthSize { length = length << 8 | Int(data[offset + byte]) }
            offset += lengthSize
            guard length > 0, offset + length <= size else { break }
            types.append(data[offset] & 0x1F)
            offset += length
        }
        return types
    }

    /// Whether the packet holds an IDR picture (a slice of NAL type 5): decoding can start
    /// there, and nothing after it refers to anything before.
    package func startsIDRPicture(lengthSize: Int) -> Bool {
        nalUnitTypes(lengthSize: lengthSize).first { $0 == 1 || $0 == 5 } == 5
    }

    /// Replaces the payload with `bytes`, keeping timestamps, flags and side data.
    package func setPayload(_ bytes: [UInt8]) throws(ReelError) {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard bytes.count < Int(Int32.max) - padding, let buffer = av_buffer_allocz(bytes.count + padding) else {
            throw ReelError(.outOfMemory, "cannot allocate a packet of \(bytes.count) bytes", operation: "av_buffer_allocz")
        }
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.pointee.data.update(from: base, count: bytes.count) }
        }
        av_buffer_unref(&pointer.pointee.buf)
        pointer.pointee.buf = buffer
        pointer.pointee.data = buffer.pointee.data
        pointer.pointee.size = Int32(bytes.count)
    }
}

extension Muxer {
    /// Sets the four-character code a stream is written with (`avc3`: H.264 whose parameter
    /// sets may change in the stream, carried before the pictures that use them). Call before the header.
    package func setCodecTag(_ tag: String, streamIndex: Int) {
        guard tag.utf8.count == 4, let stream = context.pointee.streams[streamIndex] else { return }
        let bytes = Array(tag.utf8).map(UInt32.init)
        stream.pointee.codecpar.pointee.codec_tag = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
    }
}

extension Encoder {
    /// The encoder's set-up data (x264 with a global header: its SPS and PPS, Annex B).
    package var extradata: [UInt8] {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }
}

extension Packet {
    /// Forgets the packet's byte position in its source file, for writing it into another.
    package func clearPosition() { pointer.pointee.pos = -1 }
}

extension AVCConfiguration {
    /// The first picture parameter set's `pic_init_qp` (26 + `pic_init_qp_minus26`): x264
    /// writes its constant rate factor there in CRF mode, so an encoder given this CRF writes
    /// the same set. Nil when there is no PPS or it cannot be read.
    package var pictureInitialQP: Int? {
        guard let pps = parameterSets.first(where: { ($0.first ?? 0) & 0x1F == 8 }), pps.count > 1 else { return nil }
        // Emulation-prevention bytes (00 00 03) out first.
        var bits: [UInt8] = []
        var zeros = 0
        for byte in pps.dropFirst() {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            bits.append(byte)
        }
        var position = 0
        func bit() -> Int? {
            guard position < bits.count * 8 else { return nil }
            defer { position += 1 }
            return Int(bits[position / 8] >> (7 - UInt8(position % 8)) & 1)
        }
        func unsigned() -> Int? {
            var leading = 0
            while let next = bit(), next == 0 {
                leading += 1
                if leading > 31 { return nil }
            }
            var value = 1
            for _ in 0..<leading {
                guard let next = bit() else { return nil }
                value = value << 1 | next
            }
            return value - 1
        }
        // pps_id, sps_id, entropy_coding_mode, bottom_field_pic_order, num_slice_groups_minus1.
        guard unsigned() != nil, unsigned() != nil, bit() != nil, bit() != nil, unsigned() == 0,
              unsigned() != nil, unsigned() != nil, bit() != nil, let high = bit(), let low = bit(), high * 2 + low <= 2,
              let coded = unsigned() else { return nil }
        let minus26 = coded % 2 == 1 ? (coded + 1) / 2 : -(coded / 2)
        return 26 + minus26
    }
}
