/// The layout of pixels in a ``PixelBuffer``. The counterpart of
/// `kCVPixelFormatType_*`; the raw value is FFmpeg's pixel-format name, so the codec
/// layer can map every format without a table of C constants here.
public struct PixelFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// A pixel format by FFmpeg's name (`yuv420p`, `rgba`, …).
    /// - Parameter rawValue: The name; one Reel does not know is refused where pictures are made.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Planar 4:2:0 YUV, 8 bits: Y, then U and V at half width and height.
    /// `kCVPixelFormatType_420YpCbCr8Planar`.
    public static let yuv420p = PixelFormat(rawValue: "yuv420p")
    /// Semi-planar 4:2:0: Y, then interleaved UV at half height.
    /// `kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange`.
    public static let nv12 = PixelFormat(rawValue: "nv12")
    /// Packed 4:2:2 YUYV, the usual uncompressed webcam format. `kCVPixelFormatType_422YpCbCr8_yuvs`.
    public static let yuyv422 = PixelFormat(rawValue: "yuyv422")
    /// Planar 4:4:4 YUV, 8 bits.
    public static let yuv444p = PixelFormat(rawValue: "yuv444p")
    /// Packed B, G, R, A bytes. `kCVPixelFormatType_32BGRA`.
    public static let bgra = PixelFormat(rawValue: "bgra")
    /// Packed R, G, B, A bytes. `kCVPixelFormatType_32RGBA`.
    public static let rgba = PixelFormat(rawValue: "rgba")
    /// Packed R, G, B bytes. `kCVPixelFormatType_24RGB`.
    public static let rgb24 = PixelFormat(rawValue: "rgb24")
    /// One 8-bit luma plane. `kCVPixelFormatType_OneComponent8`.
    public static let gray8 = PixelFormat(rawValue: "gray")

    /// The geometry of one plane relative to the picture.
    public struct PlaneLayout: Sendable, Hashable {
        /// Picture width divided by this is the plane's width in samples (rounded up).
        public var horizontalSubsampling: Int
        /// Picture height divided by this is the plane's height in rows (rounded up).
        public var verticalSubsampling: Int
        /// Bytes per sample position in this plane (4 for BGRA, 2 for NV12's UV pairs).
        public var bytesPerElement: Int
    }

    /// The planes of this format, or nil for a format Reel's buffers do not hold.
    public var planeLayouts: [PlaneLayout]? {
        switch self {
        case .yuv420p: [.init(1, 1, 1), .init(2, 2, 1), .init(2, 2, 1)]
        case .nv12: [.init(1, 1, 1), .init(2, 2, 2)]
        case .yuv444p: [.init(1, 1, 1), .init(1, 1, 1), .init(1, 1, 1)]
        case .yuyv422: [.init(2, 1, 4)]
        case .bgra, .rgba: [.init(1, 1, 4)]
        case .rgb24: [.init(1, 1, 3)]
        case .gray8: [.init(1, 1, 1)]
        default: nil
        }
    }

    /// Every format ``PixelBuffer`` can hold.
    public static let supported: [PixelFormat] = [.yuv420p, .nv12, .yuv444p, .yuyv422, .bgra, .rgba, .rgb24, .gray8]

    /// Whether the format stores luma and chroma (as opposed to RGB).
    public var isYUV: Bool { [.yuv420p, .nv12, .yuv444p, .yuyv422].contains(self) }

    /// Whether width and height must be even for this format.
    public var requiresEvenDimensions: Bool { [.yuv420p, .nv12, .yuyv422].contains(self) }

    public var description: String { rawValue }
}

extension PixelFormat.PlaneLayout {
    init(_ h: Int, _ v: Int, _ bytes: Int) {
        self.init(horizontalSubsampling: h, verticalSubsampling: v, bytesPerElement: bytes)
    }
}
