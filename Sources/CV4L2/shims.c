#include "CV4L2.h"
#include <sys/ioctl.h>

unsigned long reel_vidioc_querycap(void) { return VIDIOC_QUERYCAP; }
unsigned long reel_vidioc_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
unsigned long reel_vidioc_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
unsigned long reel_vidioc_enum_frameintervals(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
unsigned long reel_vidioc_queryctrl(void) { return VIDIOC_QUERYCTRL; }
unsigned long reel_vidioc_g_ctrl(void) { return VIDIOC_G_CTRL; }
unsigned long reel_vidioc_s_ctrl(void) { return VIDIOC_S_CTRL; }
unsigned long reel_vidioc_g_parm(void) { return VIDIOC_G_PARM; }
unsigned long reel_vidioc_s_parm(void) { return VIDIOC_S_PARM; }
int reel_v4l2_ioctl(int fd, unsigned long request, void *argument) { return ioctl(fd, request, argument); }
