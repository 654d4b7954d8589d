module join_type #(parameter SIZE = 2) (input x
