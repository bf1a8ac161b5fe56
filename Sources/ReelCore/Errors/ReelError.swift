/// What went wrong in Reel: a code to match on, the file it concerns, the operation
/// that failed and a message, which for FFmpeg failures is FFmpeg's own text.
///
/// Its ``description`` is the one line the CLI prints: `FILE: message`.
public struct ReelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A category of failure, stable across releases.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        /// A code by name.
        /// - Parameter rawValue: The name, as the static members spell it.
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let fileNotFound = Code(rawValue: "fileNotFound")
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        public static let isDirectory = Code(rawValue: "isDirectory")
        public static let emptyFile = Code(rawValue: "emptyFile")
        /// The bytes are not media FFmpeg can read, or are damaged.
        public static let invalidData = Code(rawValue: "invalidData")
        /// A codec, format or option that this build cannot handle.
        public static let unsupported = Code(rawValue: "unsupported")
        /// A caller's argument is out of range or inconsistent.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// A call made in the wrong state (appending after finishing, say).
        public static let invalidState = Code(rawValue: "invalidState")
        /// Reading or writing the file failed.
        public static let io = Code(rawValue: "io")
        /// No space left on the device.
        public static let diskFull = Code(rawValue: "diskFull")
        public static let outOfMemory = Code(rawValue: "outOfMemory")
        public static let cancelled = Code(rawValue: "cancelled")
        /// A device another program holds (EBUSY).
        public static let deviceBusy = Code(rawValue: "deviceBusy")
        /// A device that is not there any more: unplugged, switched off (ENODEV).
        public static let deviceNotConnected = Code(rawValue: "deviceNotConnected")
        /// Any other FFmpeg failure; ``ReelError/ffmpegCode`` holds FFmpeg's code.
        public static let ffmpeg = Code(rawValue: "ffmpeg")

        public var description: String { rawValue }
    }

    public var code: Code
    /// What the message is about: a file path, or a field such as `--size`.
    public var subject: String?
    /// The step that failed, such as `avformat_open_input`.
    public var operation: String?
    /// The cause, in words: FFmpeg's own message where FFmpeg failed.
    public var message: String
    /// FFmpeg's negative error code, when the failure came from FFmpeg.
    public var ffmpegCode: Int32?

    /// An error to show as one line: the subject, then the cause.
    /// - Parameters:
    ///   - code: The kind of failure, for code that reacts to it.
    ///   - message: The cause, in words; FFmpeg's message where FFmpeg failed.
    ///   - subject: The file or option the message is about.
    ///   - operation: The step that failed (`avformat_open_input`).
    ///   - ffmpegCode: FFmpeg's negative error code, when it came from FFmpeg.
    public init(_ code: Code, _ message: String, subject: String? = nil, operation: String? = nil,
                ffmpegCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.subject = subject
        self.operation = operation
        self.ffmpegCode = ffmpegCode
    }

    /// The same error about `subject`, unless it already names one.
    /// - Parameter subject: What the error is about (a path, an option).
    /// - Returns: The error with that subject, or unchanged when it names a more precise one.
    public func about(_ subject: String) -> ReelError {
        var copy = self
        if copy.subject == nil { copy.subject = subject }
        return copy
    }

    /// The same error about `replacement` where it was about `subject`: a file written
    /// under a hidden temporary name is reported by the name the user asked for.
    /// - Parameters:
    ///   - subject: The name to replace (the temporary file's path).
    ///   - replacement: The name the user knows.
    /// - Returns: The error with `replacement` as its subject when it had none or had `subject`;
    ///   the message is kept.
    public func renamingSubject(_ subject: String, to replacement: String) -> ReelError {
        var copy = self
        if copy.subject == nil || copy.subject == subject { copy.subject = replacement }
        return copy
    }

    /// Input text as an error message may quote it: at most `limit` characters, every
    /// control or unprintable character (a binary file's bytes, a line break) shown as `?`,
    /// and `…` where it was cut, so that a 10 MB line or a binary file stays one short line.
    /// - Parameters:
    ///   - text: the text from the input.
    ///   - limit: the most characters kept.
    /// - Returns: the printable, bounded quotation (without quote marks).
    public static func quoted(_ text: some StringProtocol, limit: Int = 80) -> String {
        var result = ""
        var count = 0
        for character in text {
            if count == limit { return result + "…" }
            let printable = character.unicodeScalars.allSatisfy { scalar in
                switch scalar.properties.generalCategory {
                case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: false
                default: scalar != "\u{FFFD}"
                }
            }
            result.append(printable ? character : "?")
            count += 1
        }
        return result
    }

    /// `subject: message (operation)` on one line.
    public var description: String {
        var line = subject.map { "\($0): " } ?? ""
        line += message
        if let operation { line += " (\(operation))" }
        return line.replacingNewlines()
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}
