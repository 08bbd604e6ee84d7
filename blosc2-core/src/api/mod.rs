//! The typed Rust API over the engine modules: what [`crate`] re-exports at
//! its root.

pub(crate) mod bulk;
pub(crate) mod element;
pub(crate) mod ndarray;
pub(crate) mod params;
mod paths;
pub(crate) mod schunk;
pub(crate) mod stream;

#[cfg(test)]
mod tests {
    use crate::*;

    fn send_sync<T: Send + Sync>() {}

    // C-SEND-SYNC and C-GOOD-ERR: the public types cross threads, and the
    // error works with `Box<dyn Error + Send + Sync>`
    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<CParams>();
        send_sync::<Codec>();
        send_sync::<Filter>();
        send_sync::<Error>();
        send_sync::<Reason>();
        send_sync::<Schunk>();
        send_sync::<NdArray>();
        send_sync::<Encoder<Vec<u8>>>();
        send_sync::<Decoder<std::fs::File>>();
        let boxed: Box<dyn std::error::Error + Send + Sync> = Error::new(ErrorKind::Data).into();
        assert!(boxed.to_string().contains("Invalid data"));
    }
}
