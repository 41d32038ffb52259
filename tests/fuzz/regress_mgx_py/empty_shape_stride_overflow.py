p = migraphx.program()
mm = p.get_main_module()
x = mm.add_parameter("x", migraphx.shape(type="float_type", lens=[0,1099511627776,1099511627776]))
mm.add_return([x])
