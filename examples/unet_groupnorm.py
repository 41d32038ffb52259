# The UNet conv -> GroupNorm -> SiLU -> conv block of seed 000 (AMDMIGraphX
# issue "Fuse reductions with MLIR with multi-outputs"), as the MIGraphX
# Python script the issue gives. graft reads it without running Python:
#   graft run examples/unet_groupnorm.py
#   graft import examples/unet_groupnorm.py -o unet_groupnorm.dump
# generate_argument(shape, seed) data comes from graft's own generator
# (docs/mgx-import.md): the numbers differ from MIGraphX's, the graph does not.
# The final add_instruction is not assigned: it is the program's output.
import migraphx

p = migraphx.program()
mmain = p.get_main_module()
x_main_module_0 = mmain.add_literal(migraphx.create_argument(migraphx.shape(type="float_type", lens=[1]), [1e-4]))
x_sample = mmain.add_parameter("sample",migraphx.shape(type="float_type", lens=[2,4,64,64]))
x_main_module_4 = mmain.add_literal(migraphx.generate_argument(migraphx.shape(type="float_type", lens=[320,1,1]), 1))
x_main_module_5 = mmain.add_literal(migraphx.generate_argument(migraphx.shape(type="float_type", lens=[320,1,1]), 2))
x_main_module_6 = mmain.add_literal(migraphx.generate_argument(migraphx.shape(type="float_type", lens=[320,320,3,3]), 3))
x_main_module_7 = mmain.add_literal(migraphx.generate_argument(migraphx.shape(type="float_type", lens=[320]), 4))
x_main_module_8 = mmain.add_literal(migraphx.generate_argument(migraphx.shape(type="float_type", lens=[320,4,3,3]), 5))
x_main_module_9 = mmain.add_instruction(migraphx.op("convolution", padding=[1,1,1,1]), [x_sample, x_main_module_8])
x_main_module_10 = mmain.add_instruction(migraphx.op("broadcast", axis=1, out_lens=[2,320,64,64]), [x_main_module_7])
x_main_module_11 = mmain.add_instruction(migraphx.op("add"), [x_main_module_9, x_main_module_10])
x_main_module_12 = mmain.add_instruction(migraphx.op("contiguous"), [x_main_module_11])
x_main_module_13 = mmain.add_instruction(migraphx.op("reshape", dims=[0,32,-1]), [x_main_module_12])
x_main_module_14 = mmain.add_instruction(migraphx.op("reduce_mean", axes=[2]), [x_main_module_13])
x_main_module_15 = mmain.add_instruction(migraphx.op("multibroadcast", out_lens=[2,32,40960]), [x_main_module_14])
x_main_module_16 = mmain.add_instruction(migraphx.op("sqdiff"), [x_main_module_13, x_main_module_15])
x_main_module_17 = mmain.add_instruction(migraphx.op("reduce_mean", axes=[2]), [x_main_module_16])
x_main_module_18 = mmain.add_instruction(migraphx.op("sub"), [x_main_module_13, x_main_module_15])
x_main_module_19 = mmain.add_instruction(migraphx.op("multibroadcast", out_lens=[2,32,1]), [x_main_module_0])
x_main_module_20 = mmain.add_instruction(migraphx.op("add"), [x_main_module_17, x_main_module_19])
x_main_module_21 = mmain.add_instruction(migraphx.op("rsqrt"), [x_main_module_20])
x_main_module_22 = mmain.add_instruction(migraphx.op("multibroadcast", out_lens=[2,32,40960]), [x_main_module_21])
x_main_module_23 = mmain.add_instruction(migraphx.op("mul"), [x_main_module_18, x_main_module_22])
x_main_module_24 = mmain.add_instruction(migraphx.op("contiguous"), [x_main_module_23])
x_main_module_25 = mmain.add_instruction(migraphx.op("reshape", dims=[2,320,64,64]), [x_main_module_24])
x_main_module_26 = mmain.add_instruction(migraphx.op("multibroadcast", out_lens=[2,320,64,64]), [x_main_module_5])
x_main_module_27 = mmain.add_instruction(migraphx.op("mul"), [x_main_module_25, x_main_module_26])
x_main_module_28 = mmain.add_instruction(migraphx.op("multibroadcast", out_lens=[2,320,64,64]), [x_main_module_4])
x_main_module_29 = mmain.add_instruction(migraphx.op("add"), [x_main_module_27, x_main_module_28])
x_main_module_30 = mmain.add_instruction(migraphx.op("sigmoid"), [x_main_module_29])
x_main_module_31 = mmain.add_instruction(migraphx.op("mul"), [x_main_module_29, x_main_module_30])
mmain.add_instruction(migraphx.op("convolution", padding=[1,1,1,1]), [x_main_module_31, x_main_module_6])
