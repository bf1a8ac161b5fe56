public import ReelCore

extension ClipSequence {
    /// How a clip's picture (or the part of it a ``Motion`` shows) fills the render size.
    public enum Fit: String, Sendable, CaseIterable {
        /// As large as fits inside, centred, black bars where the aspect differs (the
        /// default, as `AVLayerVideoGravity.resizeAspect`).
        case contain
        /// As small as covers the frame, centred, the overflow cut (`.resizeAspectFill`).
        case cover
        /// Stretched to the frame (`.resize`).
        case fill
    }

    /// A move over a clip's picture from one rectangle to another (Ken Burns): the part of
    /// the upright picture on screen, in fractions of its width and height, at the clip's
    /// first and last moment, in between by the timing function.
    public struct Motion: Sendable, Equatable {
        /// The part shown at the clip's start, in fractions of the upright picture.
        public var start: Rect
        /// The part shown at its end.
        public var end: Rect
        /// How the move eases over the clip.
        public var timingFunction: MediaTimingFunction

        /// A move from `start` to `end`.
        /// - Parameters:
        ///   - start: The part of the picture shown first (x, y, width, height from 0 to 1).
        ///   - end: The part shown last.
        ///   - timingFunction: How the move eases; linear by default.
        public init(start: Rect, end: Rect, timingFunction: MediaTimingFunction = .linear) {
            self.start = start
            self.end = end
            self.timingFunction = timingFunction
        }

        /// The part shown at `fraction` of the clip (0 its start, 1 its end).
        /// - Parameters:
        ///   - fraction: How far through the clip.
        ///   - seconds: The clip's length (a spring's motion depends on it).
        /// - Returns: The rectangle, in fractions of the upright picture.
        public func rect(at fraction: Double, overSeconds seconds: Double) -> Rect {
            let p = timingFunction.progress(at: fraction, overSeconds: seconds)
            return Rect(x: start.minX + (end.minX - start.minX) * p, y: start.minY + (end.minY - start.minY) * p,
                        width: start.width + (end.width - start.width) * p, height: start.height + (end.height - start.height) * p)
        }
    }

    /// The transform that shows `part` (fractions of the upright picture; all of it when
    /// nil) of a picture of `naturalSize`, turned by `preferredTransform`, in `size` by `fit`.
    /// A whole picture shown by `contain` is ``aspectFit(naturalSize:preferredTransform:in:)``
    /// exactly (its offset in whole pixels); a moving part is placed to the fraction of a
    /// pixel, so the move is smooth.
    /// - Parameters:
    ///   - naturalSize: The picture's stored size.
    ///   - preferredTransform: How to turn it for display.
    ///   - size: The render size.
    ///   - fit: How the part fills the frame.
    ///   - part: The part shown, in fractions of the upright picture.
    /// - Returns: Source pixels → render pixels.
    public static func placement(naturalSize: Size, preferredTransform: ReelCore.AffineTransform, in size: Size,
                                 fit: Fit, showing part: Rect? = nil) -> ReelCore.AffineTransform {
        if fit == .contain, part == nil {
            return aspectFit(naturalSize: naturalSize, preferredTransform: preferredTransform, in: size)
        }
        let turned = Rect(origin: .zero, size: naturalSize).applying(preferredTransform)
        guard turned.width > 0, turned.height > 0 else { return preferredTransform }
        let shown = part ?? Rect(x: 0, y: 0, width: 1, height: 1)
        let width = max(shown.width * turned.width, 1e-6), height = max(shown.height * turned.height, 1e-6)
        let upright = preferredTransform.concatenating(ReelCore.AffineTransform(translationX: -turned.minX - shown.minX * turned.width,
                                                                                y: -turned.minY - shown.minY * turned.height))
        var scaleX = size.width / width, scaleY = size.height / height
        switch fit {
        case .contain:
            scaleX = min(scaleX, scaleY)
            scaleY = scaleX
        case .cover:
            scaleX = max(scaleX, scaleY)
            scaleY = scaleX
        case .fill: break
        }
        let x = (size.width - width * scaleX) / 2, y = (size.height - height * scaleY) / 2
        let offsetX = part == nil ? x.rounded() : x, offsetY = part == nil ? y.rounded() : y
        return upright.concatenating(ReelCore.AffineTransform(scaleX: scaleX, y: scaleY))
            .concatenating(ReelCore.AffineTransform(translationX: offsetX, y: offsetY))
    }

    /// The crop (in stored source pixels) that keeps `part` of the upright picture alone, so
    /// that `contain` shows bars rather than the picture around the part.
    static func crop(naturalSize: Size, preferredTransform: ReelCore.AffineTransform, part: Rect) -> Rect {
        let turned = Rect(origin: .zero, size: naturalSize).applying(preferredTransform)
        let shown = Rect(x: turned.minX + part.minX * turned.width, y: turned.minY + part.minY * turned.height,
                         width: part.width * turned.width, height: part.height * turned.height)
        guard let inverse = preferredTransform.inverted() else { return Rect(origin: .zero, size: naturalSize) }
        return shown.applying(inverse)
    }
}
