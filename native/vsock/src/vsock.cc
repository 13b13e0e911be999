// AF_VSOCK stream sockets for Node: bind a listening socket or connect one, and hand the descriptor to
// JavaScript, which wraps it in a libuv stream (native/vsock/stream-handle.ts). Only socket set-up lives
// here; all I/O runs on Node's event loop.
//
// Every entry point validates its arguments completely (context id and port: integers in [0, 2^32))
// before any system call. The environment variable OP_ENCLAVE_FORBID_VSOCK (non-empty, not "0") makes
// every AF_VSOCK entry point fail after validation and before socket(2): the tests set it, because the
// machines they run on have a vsock device that is not theirs to use.
//
// Two test-only entry points (unixListenForTest, unixConnectForTest) create AF_UNIX sockets through the
// same bind/connect helpers, so the descriptor-wrapping path can be exercised without AF_VSOCK.

#include <napi.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

namespace {

Napi::Error ErrnoError(Napi::Env env, const char* syscall, int err, const std::string& detail) {
  std::string message = std::string(syscall) + " failed: " + std::strerror(err);
  if (!detail.empty()) message += " (" + detail + ")";
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("syscall", Napi::String::New(env, syscall));
  error.Set("errno", Napi::Number::New(env, err));
  return error;
}

void ThrowArgumentError(Napi::Env env, const std::string& message) {
  Napi::Error error = Napi::RangeError::New(env, message);
  error.Set("code", Napi::String::New(env, "ERR_INVALID_ARG"));
  error.ThrowAsJavaScriptException();
}

// An unsigned 32-bit integer argument (context id or port).
bool ReadU32(const Napi::CallbackInfo& info, size_t index, const char* what, uint32_t* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsNumber()) {
    ThrowArgumentError(env, std::string(what) + " must be a number");
    return false;
  }
  double value = info[index].As<Napi::Number>().DoubleValue();
  if (!(value >= 0 && value <= 4294967295.0) || value != static_cast<double>(static_cast<uint64_t>(value))) {
    ThrowArgumentError(env, std::string(what) + " must be an integer in [0, 2^32)");
    return false;
  }
  *out = static_cast<uint32_t>(value);
  return true;
}

bool ReadUnixPath(const Napi::CallbackInfo& info, size_t index, sockaddr_un* address) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsString()) {
    ThrowArgumentError(env, "path must be a string");
    return false;
  }
  std::string path = info[index].As<Napi::String>().Utf8Value();
  std::memset(address, 0, sizeof(*address));
  if (path.empty() || path.size() >= sizeof(address->sun_path) || path.find('\0') != std::string::npos) {
    ThrowArgumentError(env, "path must be 1.." + std::to_string(sizeof(address->sun_path) - 1) +
                                " bytes without NUL");
    return false;
  }
  address->sun_family = AF_UNIX;
  std::memcpy(address->sun_path, path.data(), path.size());
  return true;
}

bool VsockForbidden(Napi::Env env) {
  const char* flag = std::getenv("OP_ENCLAVE_FORBID_VSOCK");
  if (flag == nullptr || flag[0] == '\0' || std::strcmp(flag, "0") == 0) return false;
  Napi::Error error = Napi::Error::New(env, "AF_VSOCK sockets are forbidden here (OP_ENCLAVE_FORBID_VSOCK is set)");
  error.Set("code", Napi::String::New(env, "ERR_VSOCK_FORBIDDEN"));
  error.ThrowAsJavaScriptException();
  return true;
}

sockaddr_vm VsockAddress(uint32_t cid, uint32_t port) {
  sockaddr_vm address;
  std::memset(&address, 0, sizeof(address));
  address.svm_family = AF_VSOCK;
  address.svm_cid = cid;
  address.svm_port = port;
  return address;
}

// socket(2) + bind(2); listen(2) is left to libuv (uv_listen). Returns the fd, or -errno.
int BindStream(int family, const sockaddr* address, socklen_t length, const char** failed) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd == -1) {
    *failed = "socket";
    return -errno;
  }
  if (bind(fd, address, length) == -1) {
    int err = errno;
    close(fd);
    *failed = "bind";
    return -err;
  }
  return fd;
}

// socket(2) + blocking connect(2) (run on a worker thread). Returns the fd, or -errno.
int ConnectStream(int family, const sockaddr* address, socklen_t length, const char** failed) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd == -1) {
    *failed = "socket";
    return -errno;
  }
  int rc;
  do {
    rc = connect(fd, address, length);
  } while (rc == -1 && errno == EINTR);
  if (rc == -1) {
    int err = errno;
    close(fd);
    *failed = "connect";
    return -err;
  }
  return fd;
}

Napi::Value BoundFdOrThrow(Napi::Env env, int result, const char* failed, const std::string& detail) {
  if (result < 0) {
    ErrnoError(env, failed, -result, detail).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, result);
}

class ConnectWorker : public Napi::AsyncWorker {
 public:
  ConnectWorker(Napi::Env env, int family, const void* address, socklen_t length, std::string detail)
      : Napi::AsyncWorker(env), family_(family), length_(length), detail_(std::move(detail)),
        deferred_(Napi::Promise::Deferred::New(env)) {
    std::memcpy(&address_, address, length);
  }

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override { result_ = ConnectStream(family_, reinterpret_cast<sockaddr*>(&address_), length_, &failed_); }

  void OnOK() override {
    Napi::Env env = Env();
    if (result_ < 0) {
      deferred_.Reject(ErrnoError(env, failed_, -result_, detail_).Value());
      return;
    }
    deferred_.Resolve(Napi::Number::New(env, result_));
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  int family_;
  sockaddr_storage address_;
  socklen_t length_;
  std::string detail_;
  int result_ = -EINVAL;
  const char* failed_ = "connect";
  Napi::Promise::Deferred deferred_;
};

std::string VsockDetail(uint32_t cid, uint32_t port) {
  return "vsock cid " + std::to_string(cid) + " port " + std::to_string(port);
}

// listen(cid, port) -> fd bound to (cid, port), not yet listening
Napi::Value Listen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint32_t cid, port;
  if (!ReadU32(info, 0, "cid", &cid) || !ReadU32(info, 1, "port", &port)) return env.Undefined();
  if (VsockForbidden(env)) return env.Undefined();
  sockaddr_vm address = VsockAddress(cid, port);
  const char* failed = "socket";
  int result = BindStream(AF_VSOCK, reinterpret_cast<sockaddr*>(&address), sizeof(address), &failed);
  return BoundFdOrThrow(env, result, failed, VsockDetail(cid, port));
}

// connect(cid, port) -> Promise<fd> connected to (cid, port)
Napi::Value Connect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint32_t cid, port;
  if (!ReadU32(info, 0, "cid", &cid) || !ReadU32(info, 1, "port", &port)) return env.Undefined();
  if (VsockForbidden(env)) return env.Undefined();
  sockaddr_vm address = VsockAddress(cid, port);
  ConnectWorker* worker = new ConnectWorker(env, AF_VSOCK, &address, sizeof(address), VsockDetail(cid, port));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// unixListenForTest(path) -> fd bound to the AF_UNIX path, not yet listening (tests only)
Napi::Value UnixListenForTest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sockaddr_un address;
  if (!ReadUnixPath(info, 0, &address)) return env.Undefined();
  const char* failed = "socket";
  int result = BindStream(AF_UNIX, reinterpret_cast<sockaddr*>(&address), sizeof(address), &failed);
  return BoundFdOrThrow(env, result, failed, address.sun_path);
}

// unixConnectForTest(path) -> Promise<fd> connected to the AF_UNIX path (tests only)
Napi::Value UnixConnectForTest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sockaddr_un address;
  if (!ReadUnixPath(info, 0, &address)) return env.Undefined();
  ConnectWorker* worker = new ConnectWorker(env, AF_UNIX, &address, sizeof(address), address.sun_path);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// closeFd(fd): releases a descriptor that could not be handed to libuv.
Napi::Value CloseFd(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint32_t fd;
  if (!ReadU32(info, 0, "fd", &fd)) return env.Undefined();
  if (fd > 2147483647u) {
    ThrowArgumentError(env, "fd must be below 2^31");
    return env.Undefined();
  }
  if (close(static_cast<int>(fd)) == -1 && errno != EINTR) {
    ErrnoError(env, "close", errno, "").ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("listen", Napi::Function::New(env, Listen, "listen"));
  exports.Set("connect", Napi::Function::New(env, Connect, "connect"));
  exports.Set("unixListenForTest", Napi::Function::New(env, UnixListenForTest, "unixListenForTest"));
  exports.Set("unixConnectForTest", Napi::Function::New(env, UnixConnectForTest, "unixConnectForTest"));
  exports.Set("closeFd", Napi::Function::New(env, CloseFd, "closeFd"));
  exports.Set("VMADDR_CID_ANY", Napi::Number::New(env, static_cast<double>(VMADDR_CID_ANY)));
  exports.Set("VMADDR_PORT_ANY", Napi::Number::New(env, static_cast<double>(VMADDR_PORT_ANY)));
  return exports;
}

}  // namespace

NODE_API_MODULE(vsock, Init)
