import migraphx
p = migraphx.program()
m = p.get_main_module()
p_x = m.add_parameter("x­", migraphx.shape(type="float_type", lens=[2,3]))import migraphx
p = migraphx.st