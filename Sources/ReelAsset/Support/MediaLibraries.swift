import ReelAV

/// The media libraries under Reel, for `--version` output and bug reports.
public enum MediaLibraries {
    /// FFmpeg's library versions, such as `libavformat 59.27.100, libavcodec 59.37.100, …`.
    public static var versions: String { FFmpeg.libraryVersions }
}
