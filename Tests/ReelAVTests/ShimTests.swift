import CFFmpeg
import CFFmpegShims
import Foundation
import ReelAV
import ReelCore
import Testing

/// FFERRTAG(a, b, c, d) as FFmpeg defines it: -(a | b << 8 | c << 16 | d << 24).
private func errorTag(_ tag: String) -> Int32 {
    let bytes = Array(tag.utf8).map(Int32.init)
    return -(bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24)
}

@Suite struct ShimTests {
    @Test func errorMacrosMatchTheirDefinitions() {
        #expect(reel_averror(EAGAIN) == -EAGAIN)
        #expect(reel_averror(ENOENT) == -2)
        #expect(reel_averror_eof() == errorTag("EOF "))
        #expect(reel_averror_invaliddata() == errorTag("INDA"))
        #expect(reel_averror_decoder_not_found() == -(0xF8 | Int32(UInt8(ascii: "D")) << 8 | Int32(UInt8(ascii: "E")) << 16 | Int32(UInt8(ascii: "C")) << 24))
        #expect(reel_averror_exit() == errorTag("EXIT"))
        #expect(FFmpeg.again == -EAGAIN)
        #expect(FFmpeg.endOfFile == errorTag("EOF "))
    }

    @Test func timestampConstants() {
        #expect(reel_nopts_value() == Int64.min)
        #expect(FFmpeg.noTimestamp == Int64(bitPattern: 0x8000_0000_0000_0000))
        #expect(reel_time_base() == 1_000_000)
    }

    @Test func errorsCarryFFmpegsMessageAndCategory() {
        let missing = FFmpeg.error(reel_averror(ENOENT), "avformat_open_input", subject: "x.mp4")
        #expect(missing.code == .fileNotFound)
        #expect(missing.message.contains("No such file or directory"))
        #expect(missing.description.hasPrefix("x.mp4: "))
        #expect(missing.ffmpegCode == -2)
        #expect(FFmpeg.error(reel_averror_invaliddata(), "op").code == .invalidData)
        #expect(FFmpeg.error(reel_averror(ENOSPC), "op").code == .diskFull)
        #expect(FFmpeg.error(reel_averror_encoder_not_found(), "op").code == .unsupported)
        #expect(throws: ReelError.self) { try FFmpeg.check(-22, "avcodec_open2") }
        #expect((try? FFmpeg.check(5, "fine")) == 5)
    }

    @Test func rationalTimesAreExact() {
        let tb = Rational(1, 90000)
        #expect(tb.time(3600) == MediaTime(value: 1, timescale: 25))
        #expect(tb.timestamp(MediaTime(value: 1, timescale: 25)) == 3600)
        #expect(!tb.time(FFmpeg.noTimestamp).isValid)
        let odd = Rational(1001, 30000)
        #expect(odd.time(30) == MediaTime(value: 30030, timescale: 30000))
        #expect(odd.timestamp(MediaTime(value: 30030, timescale: 30000)) == 30)
    }
}
