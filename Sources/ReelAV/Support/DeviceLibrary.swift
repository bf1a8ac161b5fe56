import CFFmpeg
import CFFmpegShims
import ReelCore

/// The libavdevice functions Reel calls, looked up when a device is first opened or
/// listed (see ``SharedLibrary`` for why it is not linked). Loading it registers its
/// inputs (`pulse`, `alsa`, `x11grab`, `video4linux2`) with libavformat.
struct DeviceLibrary: Sendable {
    let listInputSources: @convention(c) (UnsafePointer<AVInputFormat>?, UnsafePointer<CChar>?, OpaquePointer?,
                                          UnsafeMutablePointer<UnsafeMutablePointer<AVDeviceInfoList>?>?) -> Int32
    let freeListDevices: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVDeviceInfoList>?>?) -> Void

    /// The library, loaded and its devices registered on first use.
    /// - Throws: ``ReelError`` `.unsupported` when libavdevice cannot be loaded.
    static func load() throws(ReelError) -> DeviceLibrary { try loaded.get() }

    private static let loaded = Result { () throws(ReelError) in
        try DeviceLibrary(try SharedLibrary.open("libavdevice.so.\(LIBAVDEVICE_VERSION_MAJOR)"))
    }

    private init(_ library: SharedLibrary) throws(ReelError) {
        listInputSources = try library.function("avdevice_list_input_sources")
        freeListDevices = try library.function("avdevice_free_list_devices")
        let register: @convention(c) () -> Void = try library.function("avdevice_register_all")
        register()
        reel_alsa_quiet()
    }
}
