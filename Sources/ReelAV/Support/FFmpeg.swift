import CFFmpeg
import CFFmpegShims
package import ReelCore

/// The one place FFmpeg results become Swift values: every libav* call that can fail
/// goes through ``check(_:_:subject:)``, which turns a negative result into a
/// ``ReelError`` carrying the function's name and FFmpeg's own message.
package enum FFmpeg {
    /// Installs Reel's log sink once: FFmpeg prints nothing, and its last error line on
    /// each thread is appended to the error report of the failing call.
    package static func prepare() {
        reel_log_install()
    }

    /// Loads libavdevice, once, which registers its inputs: makes them findable by name.
    /// - Throws: ``ReelError`` `.unsupported` when libavdevice cannot be loaded.
    package static func registerDevices() throws(ReelError) { _ = try DeviceLibrary.load() }

    /// `result` when it is not negative; otherwise the error it stands for.
    @discardableResult
    package static func check(_ result: Int32, _ operation: String, subject: String? = nil) throws(ReelError) -> Int32 {
        if result >= 0 {
            return result
        }
        throw error(result, operation, subject: subject)
    }

    /// The error for FFmpeg code `code`: `av_strerror`'s text, plus what FFmpeg logged
    /// on this thread while the call ran (such as "moov atom not found").
    package static func error(_ code: Int32, _ operation: String, subject: String? = nil) -> ReelError {
        let text = errorText(code)
        let logged = takeLastLoggedError()
        let message = (logged.isEmpty || text.contains(logged)) ? text : "\(text): \(logged)"
        return ReelError(category(of: code), message, subject: subject, operation: operation, ffmpegCode: code)
    }

    /// Forgets any earlier log line, so that the next error report only names what its call logged.
    package static func clearLog() { reel_log_clear() }

    /// `av_strerror`'s text for `code`.
    package static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            return "FFmpeg error \(code)"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func takeLastLoggedError() -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        reel_log_take_last_error(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// FFmpeg's code for a POSIX errno. `AVERROR(e)`.
    package static func code(errno value: Int32) -> Int32 { reel_averror(value) }

    /// `AVERROR(EAGAIN)`: not an error, the codec needs the other side to move first.
    package static let again = reel_averror(EAGAIN)
    /// `AVERROR_EOF`.
    package static let endOfFile = reel_averror_eof()
    /// `AV_NOPTS_VALUE`.
    package static let noTimestamp = reel_nopts_value()

    static func category(of code: Int32) -> ReelError.Code {
        switch code {
        case reel_averror(ENOENT): .fileNotFound
        case reel_averror(EACCES), reel_averror(EPERM), reel_averror(EROFS): .permissionDenied
        case reel_averror(EISDIR): .isDirectory
        case reel_averror(ENOSPC), reel_averror(EDQUOT), reel_averror(EFBIG): .diskFull
        case reel_averror(ENOMEM): .outOfMemory
        case reel_averror(EINVAL): .invalidArgument
        case reel_averror(EIO): .io
        case reel_averror_invaliddata(): .invalidData
        case reel_averror_decoder_not_found(), reel_averror_encoder_not_found(),
             reel_averror_demuxer_not_found(), reel_averror(ENOSYS): .unsupported
        case reel_averror_exit(): .cancelled
        default: .ffmpeg
        }
    }

    /// A C string as Swift, or nil.
    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

extension FFmpeg {
    /// `libavformat 59.27.100, libavcodec 59.37.100, …` for `--version` and bug reports.
    package static var libraryVersions: String {
        func text(_ name: String, _ version: UInt32) -> String {
            "\(name) \(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)"
        }
        return [text("libavformat", avformat_version()), text("libavcodec", avcodec_version()),
                text("libavutil", avutil_version()), text("libswscale", swscale_version()),
                text("libswresample", swresample_version())].joined(separator: ", ")
    }
}
