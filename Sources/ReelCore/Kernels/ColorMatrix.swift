/// The YCbCr matrix a picture's luma and chroma were made with: BT.601 (the `smpte170m`
/// tags) or BT.709.
///
/// Reel's one rule: a YCbCr picture below 720 lines is BT.601, from 720 lines up BT.709
/// (as the ffmpeg CLI reads untagged video, and as cameras tag theirs). Reel decodes untagged
/// sources by it (a source tagged `bt709`, `smpte170m` or `bt470bg` by its tag), converts between sizes across 720 lines with it, draws overlays in the output's
/// matrix, and tags every file it encodes with the matrix its pixels were made with. A JPEG
/// (full-range `yuvj`) picture is BT.601 at any size, as JFIF defines it.
package enum ColorMatrix: Sendable, Hashable {
    case bt601
    case bt709

    /// The matrix of a picture `height` lines high: BT.709 from 720 lines up, else BT.601.
    /// - Parameter height: The picture's height in lines.
    package init(height: Int) {
        self = height >= 720 ? .bt709 : .bt601
    }

    /// The red weight of luma, Kr.
    @inlinable package var kr: Double { self == .bt709 ? 0.2126 : 0.299 }
    /// The green weight of luma, 1 − Kr − Kb (written out, as the standards give it).
    @inlinable package var kg: Double { self == .bt709 ? 0.7152 : 0.587 }
    /// The blue weight of luma, Kb.
    @inlinable package var kb: Double { self == .bt709 ? 0.0722 : 0.114 }
    /// B − Y′ over this is Cb from −0.5 to 0.5: 2 (1 − Kb).
    @inlinable package var cbDivisor: Double { self == .bt709 ? 1.8556 : 1.772 }
    /// R − Y′ over this is Cr from −0.5 to 0.5: 2 (1 − Kr).
    @inlinable package var crDivisor: Double { self == .bt709 ? 1.5748 : 1.402 }

    /// The name the ffmpeg CLI's `scale` filter takes (`in_color_matrix=`, `out_color_matrix=`).
    package var scaleFilterName: String { self == .bt709 ? "bt709" : "bt601" }
}
