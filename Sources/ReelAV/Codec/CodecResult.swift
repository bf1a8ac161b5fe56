/// What a send/receive step of a codec produced. EAGAIN and EOF are ordinary
/// outcomes, not errors, as FFmpeg's send/receive API intends.
package enum CodecResult: Sendable, Equatable {
    /// A frame (or packet) was produced.
    case produced
    /// The codec needs more input before it can produce anything.
    case needsInput
    /// The codec is drained: nothing more will come.
    case endOfStream
}
