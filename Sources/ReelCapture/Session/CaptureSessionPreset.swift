extension CaptureSession {
    /// The size a session captures at. `AVCaptureSession.Preset`.
    public struct Preset: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        public let rawValue: String
        /// A preset by name, as ``rawValue`` gives it (`high`, `1280x720`, …).
        /// - Parameter rawValue: The preset's name; an unknown one captures at the camera's own size.
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let photo = Preset(rawValue: "photo")
        public static let high = Preset(rawValue: "high")
        public static let medium = Preset(rawValue: "medium")
        public static let low = Preset(rawValue: "low")
        public static let vga640x480 = Preset(rawValue: "640x480")
        public static let iFrame960x540 = Preset(rawValue: "iFrame960x540")
        public static let hd1280x720 = Preset(rawValue: "1280x720")
        public static let hd1920x1080 = Preset(rawValue: "1920x1080")
        public static let hd4K3840x2160 = Preset(rawValue: "3840x2160")
        public static let allCases: [Preset] = [.photo, .high, .medium, .low, .vga640x480, .iFrame960x540, .hd1280x720,
                                                .hd1920x1080, .hd4K3840x2160]

        public var description: String { rawValue }

        /// The frame size the preset asks for.
        var size: (width: Int, height: Int) {
            switch self {
            case .photo, .hd4K3840x2160: (3840, 2160)
            case .high, .hd1920x1080: (1920, 1080)
            case .medium, .vga640x480: (640, 480)
            case .low: (480, 360)
            case .iFrame960x540: (960, 540)
            default: (1280, 720)
            }
        }
    }
}
