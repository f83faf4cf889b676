//! Trains a small MLP on XOR with glia's Rust binding and prints the loss.
//!
//! Run from bindings/rust: `GLIA_LIB_DIR=<build>/src LD_LIBRARY_PATH=<build>/src
//! cargo run --offline --example train`.
use glia::nn::{self, Module};
use glia::optim::{AdamOptions, LrScheduler, Optimizer};
use glia::Tensor;

fn main() -> glia::Result<()> {
    glia::manual_seed(0);
    let x = Tensor::from_slice(&[0f32, 0., 0., 1., 1., 0., 1., 1.], &[4, 2])?;
    let y = Tensor::from_slice(&[0f32, 1., 1., 0.], &[4, 1])?;

    // Linear -> Tanh -> Linear, plus a custom Rust module that scales the output
    let scale = Module::custom("Scale", |m, inputs| {
        Ok(vec![&inputs[0] * &m.parameter("s")?])
    })?;
    scale.register_parameter("s", &Tensor::ones(&[1])?)?;
    let model = nn::sequential(&[
        &nn::linear(2, 8, true)?,
        &nn::tanh()?,
        &nn::linear(8, 1, true)?,
        &scale,
    ])?;
    println!("{}", model);

    let mut opt = Optimizer::adam(
        &model.parameters(),
        &AdamOptions {
            lr: 0.05,
            ..Default::default()
        },
    )?;
    let mut sched = LrScheduler::step_lr(&opt, 100, 0.5)?;
    let loss_fn = nn::mse_loss()?;
    let mut first = f64::NAN;
    let mut last = f64::NAN;
    for epoch in 0..300 {
        opt.zero_grad()?;
        let mut loss = loss_fn.forward2(&model.forward(&x)?, &y)?;
        last = loss.item()?;
        if epoch == 0 {
            first = last;
        }
        loss.backward()?;
        opt.step()?;
        sched.step()?;
        if epoch % 50 == 0 || epoch == 299 {
            println!("epoch {:3}  loss {:.6}  lr {:.4}", epoch, last, opt.lr(0)?);
        }
    }
    let pred = glia::no_grad(|| model.forward(&x))?;
    println!("predictions {:?}", pred.to_vec::<f32>()?);
    let fell = last < first * 0.1; // false for NaN too
    if !fell {
        eprintln!("train: the loss did not fall ({} -> {})", first, last);
        std::process::exit(1);
    }
    println!("loss fell from {:.4} to {:.6}", first, last);
    Ok(())
}
