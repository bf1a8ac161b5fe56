public import Foundation

/// Receives a segmented ``AssetWriter``'s output instead of a file. `AVAssetWriterDelegate`.
///
/// A writer made with ``AssetWriter/init(fileType:)`` and an ``AssetWriter/outputFileTypeProfile``
/// hands over the initialization segment once, when writing starts, then each media segment
/// as it completes, in order, one call at a time, on the thread that completed it (an
/// encoding queue, or the caller of ``AssetWriter/finishWriting()`` for the last one).
/// Return quickly: the writer's inputs wait meanwhile.
public protocol AssetWriterDelegate: AnyObject, Sendable {
    /// A segment is ready. `assetWriter(_:didOutputSegmentData:segmentType:segmentReport:)`.
    /// - Parameters:
    ///   - writer: The writer that made it.
    ///   - segmentData: The segment's bytes, whole.
    ///   - segmentType: Initialization or media (separable).
    ///   - segmentReport: What it holds, track by track.
    func assetWriter(
        _ writer: AssetWriter, didOutputSegmentData segmentData: Data, segmentType: AssetSegmentType,
        segmentReport: AssetSegmentReport?)
}
