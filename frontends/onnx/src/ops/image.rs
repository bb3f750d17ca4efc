//! ImageDecoder: the image a uint8 graph input encodes, decoded by runtime-c (`c/xcc_image.c`: BMP,
//! PNM, PNG and uncompressed TIFF; docs/onnx.md lists the kinds) into `[height, width, 3]` (RGB or
//! BGR) or `[height, width, 1]` (Grayscale). The run reads the image's sides from its header
//! before it starts (`NAME_output_dims`), so the input must be a graph input; its size may be a
//! dim given at run time, as encoded images' sizes vary.
//! Bytes that hold no such image (a JPEG, JPEG 2000 or WebP among them: the format is known only
//! from the bytes) make the run return `XCC_ERROR_BAD_IMAGE`.

use crate::data_dim::Measure;
use crate::emit::{runtime_call, runtime_call_void, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::Schema;
use crate::ops::OnnxOp;
use xcc_ir::{Type, ValueId};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["ImageDecoder"], &ImageDecoder, Schema::exactly(1));
}

pub struct ImageDecoder;

/// runtime-c's code for the output's pixel format, and its channels.
fn pixel_format(node: &Node) -> OResult<(i32, usize)> {
    match node.string("pixel_format").unwrap_or("RGB") {
        "RGB" => Ok((0, 3)),
        "BGR" => Ok((1, 3)),
        "Grayscale" => Ok((2, 1)),
        other => err(format!("ImageDecoder's pixel_format '{other}' is none of RGB, BGR and Grayscale")),
    }
}

impl OnnxOp for ImageDecoder {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let name = &node.inputs[0];
        let x = g.ty(name)?;
        if x.dtype != DType::U8 || x.shape.len() != 1 {
            return err(format!("ImageDecoder decodes a 1-D uint8 tensor, not {} like '{name}'", x.describe()));
        }
        if !g.inputs.iter().any(|i| i == name) {
            return err(format!(
                "ImageDecoder's output dims are the sides of the image in '{name}', which must be a graph input \
                 (xcc reads its header before the run)"
            ));
        }
        let (_, channels) = pixel_format(node)?;
        let bytes = x.dims()[0].clone();
        let side = |width: bool, what: &str| {
            let measure = Measure::ImageSide { width };
            let expr = DataExpr::Measured { input: name.clone(), count: bytes.clone(), measure };
            g.data_dim(format!("{}.{what}", node.outputs[0]), expr)
        };
        let dims = vec![side(false, "height"), side(true, "width"), Dim::fixed(channels)];
        Ok(vec![TensorType::with_dims(DType::U8, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        if !e.vector_rows {
            return err("ImageDecoder is not supported on GPUs: compile the model for a CPU");
        }
        let (format, _) = pixel_format(node)?;
        let dims = g.ty(&node.outputs[0])?.dims();
        let bytes = g.ty(&node.inputs[0])?.dims()[0].clone();
        let (x, y) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let args = [
            e.address_of(x),
            e.dim_i64(&bytes),
            e.address_of(y),
            e.dim_i64(&dims[0]),
            e.dim_i64(&dims[1]),
            e.const_int(format as i128, Type::i32()),
            e.status_address(),
        ];
        runtime_call_void(e, "xcc_image_decode", &args);
        Ok(())
    }
}

/// The height (`width` false) or width (an i64) of the image in graph input `input`'s `count`
/// bytes, in the prologue: 0 where they hold no image runtime-c decodes.
pub fn measure(e: &mut Emitter, input: &str, count: &Dim, width: bool) -> OResult<ValueId> {
    let buf = e.buf(input)?;
    let args = [e.address_of(buf), e.dim_i64(count), e.const_int(width as i128, Type::i32())];
    Ok(runtime_call(e, "xcc_image_dim", &args, Type::i64()))
}
