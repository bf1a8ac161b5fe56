import CFFmpeg
package import ReelCore

/// Converts pictures between sizes and pixel formats with libswscale, keeping one
/// cached `SwsContext` (`sws_getCachedContext`) for the shape it last saw.
///
/// Same size and format is a plain row copy; everything else goes through
/// `sws_scale` with bicubic filtering (as the ffmpeg CLI), from the source's colour matrix
/// and range to the target's. The matrices follow ``ColorMatrix``'s rule (BT.601 below 720
/// lines, BT.709 from 720 up, BT.601 for JPEG's `yuvj`) unless the caller names them: a
/// picture scaled across 720 lines is converted between them (8-bit planar pictures by
/// ``YCbCrConversion`` after scaling, others by libswscale, which goes through RGB).
package final class Scaler {
    private var context: OpaquePointer?
    private var configuredFor: Shape?

    private struct Shape: Equatable {
        var sourceWidth, sourceHeight: Int
        var source: AVPixelFormat
        var targetWidth, targetHeight: Int
        var target: AVPixelFormat
        var fullRange: Bool
        var sourceMatrix: ColorMatrix
        var targetMatrix: ColorMatrix
    }

    package init() {}

    deinit { sws_freeContext(context) }

    /// Writes `frame`'s picture into `buffer`, scaled and converted to the buffer's size and format.
    /// - Parameters:
    ///   - frame: A decoded picture, read in the matrix it is tagged with (a 640x360 file tagged
    ///     `bt709` is BT.709), or by ``ColorMatrix``'s rule when untagged.
    ///   - buffer: The picture to write.
    ///   - matrix: The YCbCr matrix `buffer` is written in; nil for ``ColorMatrix``'s rule at its height.
    package func convert(_ frame: Frame, into buffer: PixelBuffer, matrix: ColorMatrix? = nil) throws(ReelError) {
        let sourcePointers = frame.dataPointers
        let sourceStrides = frame.lineSizes
        try scale(
            sourceWidth: frame.width, sourceHeight: frame.height, sourceFormat: frame.pixelFormat,
            sourcePointers: sourcePointers.map { UnsafePointer($0) }, sourceStrides: sourceStrides,
            fullRange: frame.isFullRange, matrices: (frame.taggedMatrix, matrix),
            target: buffer)
    }

    /// Writes `buffer`'s picture into `frame`, whose size and format are already set and allocated,
    /// by ``ColorMatrix``'s rule at each one's height.
    package func convert(_ buffer: PixelBuffer, into frame: Frame) throws(ReelError) {
        let pointers = (0..<buffer.planes.count).map { index in
            buffer.withUnsafeBytes(ofPlane: index) { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        }
        let strides = buffer.planes.map { Int32($0.bytesPerRow) }
        try scale(
            sourceWidth: buffer.width, sourceHeight: buffer.height, sourceFormat: buffer.pixelFormat.av,
            sourcePointers: pointers, sourceStrides: strides, fullRange: !buffer.pixelFormat.isYUV,
            matrices: (nil, nil), targetWidth: frame.width, targetHeight: frame.height, targetFormat: frame.pixelFormat,
            targetPointers: frame.dataPointers, targetStrides: frame.lineSizes)
    }

    /// Scales one pixel buffer into another.
    /// - Parameters:
    ///   - source: The picture to read.
    ///   - target: The picture to write.
    ///   - matrix: The YCbCr matrix both are in (a window cut from a bigger picture keeps that
    ///     picture's); nil for ``ColorMatrix``'s rule at each one's height.
    package func convert(_ source: PixelBuffer, into target: PixelBuffer, matrix: ColorMatrix? = nil) throws(ReelError) {
        let pointers = (0..<source.planes.count).map { index in
            source.withUnsafeBytes(ofPlane: index) { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        }
        try scale(
            sourceWidth: source.width, sourceHeight: source.height, sourceFormat: source.pixelFormat.av,
            sourcePointers: pointers, sourceStrides: source.planes.map { Int32($0.bytesPerRow) },
            fullRange: !source.pixelFormat.isYUV, matrices: (matrix, matrix), target: target)
    }

    private func scale(
        sourceWidth: Int, sourceHeight: Int, sourceFormat: AVPixelFormat,
        sourcePointers: [UnsafePointer<UInt8>?], sourceStrides: [Int32], fullRange: Bool,
        matrices: (ColorMatrix?, ColorMatrix?), target: PixelBuffer
    ) throws(ReelError) {
        let pointers = (0..<target.planes.count).map { index in
            target.withUnsafeMutableBytes(ofPlane: index) { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        }
        try scale(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFormat: sourceFormat,
            sourcePointers: sourcePointers, sourceStrides: sourceStrides, fullRange: fullRange,
            matrices: matrices, targetWidth: target.width, targetHeight: target.height, targetFormat: target.pixelFormat.av,
            targetPointers: pointers, targetStrides: target.planes.map { Int32($0.bytesPerRow) })
    }

    private func scale(
        sourceWidth: Int, sourceHeight: Int, sourceFormat: AVPixelFormat,
        sourcePointers: [UnsafePointer<UInt8>?], sourceStrides: [Int32], fullRange: Bool,
        matrices: (ColorMatrix?, ColorMatrix?), targetWidth: Int, targetHeight: Int, targetFormat: AVPixelFormat,
        targetPointers: [UnsafeMutablePointer<UInt8>?], targetStrides: [Int32]
    ) throws(ReelError) {
        guard sourceFormat != AV_PIX_FMT_NONE, targetFormat != AV_PIX_FMT_NONE else {
            throw ReelError(.unsupported, "unknown pixel format for conversion", operation: "sws_getCachedContext")
        }
        let sourceMatrix = sourceFormat.isFullRangeYUV ? .bt601 : matrices.0 ?? ColorMatrix(height: sourceHeight)
        // An RGB side has no matrix: it takes the other's, so no conversion is asked for.
        let wantedMatrix =
            targetFormat.isFullRangeYUV
            ? .bt601
            : targetFormat.isYUVFormat ? matrices.1 ?? ColorMatrix(height: targetHeight) : sourceMatrix
        let fromMatrix = sourceFormat.isYUVFormat ? sourceMatrix : wantedMatrix
        // Between matrices with 8-bit planar video range on both sides: scaled in the source's
        // matrix, then converted in place (YCbCrConversion), a tenth of libswscale's way
        // through 16-bit RGB.
        let conversion =
            fullRange || !sourceFormat.isPlanarVideoRangeYUV8 || !targetFormat.isPlanarVideoRangeYUV8
            ? nil : YCbCrConversion(from: fromMatrix, to: wantedMatrix)
        // The matrix libswscale writes.
        let targetMatrix = conversion == nil ? wantedMatrix : fromMatrix
        func convertMatrix() {
            guard let conversion else { return }
            convertInPlace(
                conversion, width: targetWidth, height: targetHeight, format: targetFormat,
                pointers: targetPointers, strides: targetStrides)
        }
        if sourceWidth == targetWidth, sourceHeight == targetHeight, sourceFormat == targetFormat, fromMatrix == targetMatrix {
            copyPlanes(
                width: sourceWidth, height: sourceHeight, format: sourceFormat, sourcePointers: sourcePointers,
                sourceStrides: sourceStrides, targetPointers: targetPointers, targetStrides: targetStrides)
            convertMatrix()
            return
        }
        let shape = Shape(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, source: sourceFormat,
            targetWidth: targetWidth, targetHeight: targetHeight, target: targetFormat, fullRange: fullRange,
            sourceMatrix: fromMatrix, targetMatrix: targetMatrix)
        if shape != configuredFor {
            // A fresh context: one that converted between matrices holds a cascade of others,
            // which libswscale would keep using if only the matrices changed.
            sws_freeContext(context)
            context = nil
            configuredFor = nil
            context = sws_getCachedContext(
                context, Int32(sourceWidth), Int32(sourceHeight), sourceFormat,
                Int32(targetWidth), Int32(targetHeight), targetFormat,
                // Between matrices, exact rounding: 2 levels nearer on saturated colours.
                SWS_BICUBIC | (fromMatrix == targetMatrix ? 0 : SWS_ACCURATE_RND), nil, nil, nil)
            guard let context else {
                configuredFor = nil
                throw ReelError(
                    .unsupported,
                    "libswscale cannot convert \(sourceWidth)x\(sourceHeight) \(name(sourceFormat)) to \(targetWidth)x\(targetHeight) \(name(targetFormat))",
                    operation: "sws_getCachedContext")
            }
            // ColorMatrix's rule: BT.709 from 720 lines up (as H.264 from cameras and phones is
            // tagged), BT.601 below. Two YCbCr sides with different matrices that
            // YCbCrConversion cannot take are converted by libswscale (a cascade through RGB).
            func coefficients(_ matrix: ColorMatrix) -> UnsafePointer<Int32>? {
                sws_getCoefficients(matrix == .bt709 ? SWS_CS_ITU709 : SWS_CS_ITU601)
            }
            _ = sws_setColorspaceDetails(
                context, coefficients(fromMatrix), fullRange || sourceFormat.isFullRangeYUV ? 1 : 0,
                coefficients(targetMatrix),
                targetFormat.isYUVFormat && !targetFormat.isFullRangeYUV ? 0 : 1, 0, 1 << 16, 1 << 16)
            configuredFor = shape
        }
        let result = sourcePointers.withUnsafeBufferPointer { sourceData in
            sourceStrides.withUnsafeBufferPointer { sourceLines in
                targetPointers.withUnsafeBufferPointer { targetData in
                    targetStrides.withUnsafeBufferPointer { targetLines in
                        sws_scale(
                            context, sourceData.baseAddress, sourceLines.baseAddress, 0, Int32(sourceHeight),
                            targetData.baseAddress, targetLines.baseAddress)
                    }
                }
            }
        }
        try FFmpeg.check(result, "sws_scale")
        convertMatrix()
    }

    private func convertInPlace(
        _ conversion: YCbCrConversion, width: Int, height: Int, format: AVPixelFormat,
        pointers: [UnsafeMutablePointer<UInt8>?], strides: [Int32]
    ) {
        guard let descriptor = av_pix_fmt_desc_get(format), pointers.count >= 3, strides.count >= 3,
            let luma = pointers[0], let cb = pointers[1], let cr = pointers[2]
        else { return }
        conversion.apply(
            planes: (luma, cb, cr), strides: (Int(strides[0]), Int(strides[1]), Int(strides[2])),
            width: width, height: height,
            chromaShift: (Int(descriptor.pointee.log2_chroma_w), Int(descriptor.pointee.log2_chroma_h)))
    }

    private func copyPlanes(
        width: Int, height: Int, format: AVPixelFormat, sourcePointers: [UnsafePointer<UInt8>?],
        sourceStrides: [Int32], targetPointers: [UnsafeMutablePointer<UInt8>?], targetStrides: [Int32]
    ) {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return }
        let planeCount = Int(av_pix_fmt_count_planes(format))
        for plane in 0..<min(planeCount, sourcePointers.count, targetPointers.count) {
            guard let source = sourcePointers[plane], let target = targetPointers[plane] else { continue }
            let chroma = plane == 1 || plane == 2
            let rows = chroma ? -((-height) >> Int(descriptor.pointee.log2_chroma_h)) : height
            let bytes = av_image_get_linesize(format, Int32(width), Int32(plane))
            av_image_copy_plane(target, targetStrides[plane], source, sourceStrides[plane], bytes, Int32(rows))
        }
    }

    private func name(_ format: AVPixelFormat) -> String {
        FFmpeg.string(av_get_pix_fmt_name(format)) ?? "unknown"
    }
}

extension AVPixelFormat {
    /// The `yuvj…` formats, full range by definition (JPEG).
    var isFullRangeYUV: Bool {
        (FFmpeg.string(av_get_pix_fmt_name(self)) ?? "").hasPrefix("yuvj")
    }

    /// Video-range YCbCr in three 8-bit planes (`yuv420p`, `yuv422p`, `yuv444p`, and with an
    /// alpha plane): what ``YCbCrConversion`` converts in place.
    var isPlanarVideoRangeYUV8: Bool {
        guard isYUVFormat, !isFullRangeYUV, let descriptor = av_pix_fmt_desc_get(self) else { return false }
        let components = descriptor.pointee.comp
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0
            && (components.0.plane, components.1.plane, components.2.plane) == (0, 1, 2)
            && (components.0.depth, components.1.depth, components.2.depth) == (8, 8, 8)
            && (components.0.step, components.1.step, components.2.step) == (1, 1, 1)
    }

    var isYUVFormat: Bool {
        guard let descriptor = av_pix_fmt_desc_get(self) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && descriptor.pointee.nb_components >= 3
    }
}
