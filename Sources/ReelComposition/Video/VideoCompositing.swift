public import ReelCore

/// A compositor of the user's own: Swift code that makes each output frame from the
/// source frames. `AVVideoCompositing`.
///
/// Set it as ``VideoComposition/customVideoCompositor``; the renderer then hands every
/// frame to ``startRequest(_:)`` instead of drawing the layer instructions itself.
/// Requests come one at a time, in time order, from the export's thread.
public protocol VideoCompositing: AnyObject, Sendable {
    /// Fills `request.output`. `startRequest(_:)`; a thrown error fails the export.
    func startRequest(_ request: VideoCompositionRequest) throws(ReelError)
}

/// One frame to compose. `AVAsynchronousVideoCompositionRequest`.
public struct VideoCompositionRequest: Sendable {
    /// The time of the frame on the composition's timeline. `compositionTime`.
    public let compositionTime: MediaTime
    /// The instruction in force. `videoCompositionInstruction`.
    public let instruction: VideoCompositionInstruction
    /// The picture to fill, at the output size, yuv420p (from a pool: overwrite every pixel).
    public let output: PixelBuffer
    let sources: [Int: PixelBuffer]

    /// The source picture of `trackID` at this time (already scaled toward the output size),
    /// or nil when that track shows nothing now. `sourceFrame(byTrackID:)`.
    /// - Parameter trackID: The composition track's ID.
    /// - Returns: Its picture for this frame.
    public func sourceFrame(byTrackID trackID: Int) -> PixelBuffer? { sources[trackID] }

    /// The tracks with a source picture at this time. `sourceTrackIDs`.
    public var sourceTrackIDs: [Int] { sources.keys.sorted() }
}
