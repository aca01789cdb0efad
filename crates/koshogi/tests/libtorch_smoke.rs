//! The build links libtorch and can compute with it on the CPU (the rpath set by build.rs works).

use tch::{Device, Kind, Tensor};

#[test]
fn matrix_product_on_cpu_matches_hand_computation() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).reshape([2, 2]);
    let b = Tensor::from_slice(&[5.0f32, 6.0, 7.0, 8.0]).reshape([2, 2]);
    let c = a.matmul(&b).to_device(Device::Cpu);
    let values: Vec<f32> = Vec::<f32>::try_from(c.flatten(0, -1)).unwrap();
    assert_eq!(values, vec![19.0, 22.0, 43.0, 50.0]);
    assert_eq!(c.kind(), Kind::Float);
}

#[test]
fn bfloat16_convolution_runs_on_cpu() {
    let input = Tensor::ones([1, 2, 5, 5], (Kind::BFloat16, Device::Cpu));
    let weight = Tensor::ones([3, 2, 3, 3], (Kind::BFloat16, Device::Cpu));
    let out = input.conv2d(&weight, None::<Tensor>, [1, 1], [1, 1], [1, 1], 1);
    assert_eq!(out.size(), vec![1, 3, 5, 5]);
    // The centre sees all 2 x 3 x 3 ones.
    let centre = out
        .get(0)
        .get(0)
        .get(2)
        .get(2)
        .to_kind(Kind::Float)
        .double_value(&[]);
    assert_eq!(centre, 18.0);
}
