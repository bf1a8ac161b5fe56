public import Foundation
package import ReelCore

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

/// A delegate that also receives each fragment of the segment being filled as soon as it is
/// complete: Low-Latency HLS's partial segments (`EXT-X-PART`). Reel's own addition; Apple's
/// writer hands over whole segments only.
package protocol AssetWriterPartDelegate: AssetWriterDelegate {
    /// How long parts should be; nil for none. The writer's muxer cuts a fragment when its
    /// pictures reach this length (and at every keyframe), so a part lasts this long or up to
    /// a frame more, and the last part of a segment may be shorter.
    var partInterval: MediaTime? { get }

    /// A part of the segment being filled is ready: one `moof` + `mdat` pair, which plays
    /// after the initialization segment (and, unless it starts with a keyframe, after the
    /// parts before it). The segment that holds it is handed over later, whole, as usual.
    /// - Parameters:
    ///   - writer: The writer that made it.
    ///   - partData: The part's bytes.
    ///   - report: What it holds, track by track.
    func assetWriter(_ writer: AssetWriter, didOutputPartData partData: Data, report: AssetSegmentReport?)
}
