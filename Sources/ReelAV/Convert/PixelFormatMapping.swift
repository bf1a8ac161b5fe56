import CFFmpeg
package import ReelCore

extension PixelFormat {
    /// FFmpeg's `AVPixelFormat` of the same name, or `AV_PIX_FMT_NONE`.
    var av: AVPixelFormat { av_get_pix_fmt(rawValue) }
}

extension SampleFormat {
    /// FFmpeg's `AVSampleFormat` of the same name, or `AV_SAMPLE_FMT_NONE`.
    var av: AVSampleFormat { av_get_sample_fmt(rawValue) }
}

extension ChannelLayout {
    /// The FFmpeg layout: by name when FFmpeg knows it, else the default order for the count.
    var av: AVChannelLayout {
        var layout = AVChannelLayout()
        if av_channel_layout_from_string(&layout, name) < 0 || Int(layout.nb_channels) != channelCount {
            av_channel_layout_default(&layout, Int32(channelCount))
        }
        return layout
    }
}

package enum PixelFormats {
    /// Whether FFmpeg knows a pixel format by this name.
    package static func isKnown(_ format: PixelFormat) -> Bool { format.av != AV_PIX_FMT_NONE }
}
