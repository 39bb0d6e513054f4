"""English: the second edition, written for English readers."""

STRINGS: dict[str, str] = {
    "title": "Chapter 27 · self-attention: one unmasked head",
    "scale": "Scale 1/√d_k",
    "row_sum": "row sum",
    "normalization_axis": "normalized over",
    "terms": "terms",
    "loss": "L",
    "batch_independent": "batch elements are independent",
    "batch_dependent": "batch elements affect each other",
    "empty_batch": "empty batch",
    "narrow_values": "d_v ≠ d_k",
    "zero_grad_query": "query gradient is zero",
    "zero_grad_key": "key gradient is zero",
    "identical_keys": "identical keys → weight rows",
    "permutation": "permuting positions {order} in Q, K and V permutes the output the same way; difference",
    "future.later": "{query} → {keys}: weights {weights}, together {total}",
    "future.none": "{query}: no later positions",
    "future.worked": "the worked example",
    "future.hand": "the second example",
    "kind": "error code",
    "offending": "what is wrong",
    "row_sum_deviation": "largest deviation of a row sum from 1",
    "gradcheck.detail": "max |analytic − numeric| {error}",
    "gradcheck": "gradient check by central differences",
    "coordinates": "coordinates checked (Q+K+V)",
    "step": "step",
    "tolerance": "tolerance",
    "closed_form": "largest difference between the engine and the formulas",
    "replay": "second run",
    "unscaled_weight": "weight of the first position of {scores} without the scale",
    "scaled_weight": "weight of the first position of {scores} with the scale at d_k = {key_width}",
    "section.inputs": "The head's inputs: Q, K and V",
    "section.scores": "Scores: every query against every key",
    "section.scaled": "Scaled scores",
    "section.softmax": "Softmax along each query row",
    "section.mixture": "Mixing values: weighted terms and the output",
    "section.backward": "Backward pass (L = ⟨O, Ō⟩)",
    "section.gradient_table_own": "Gradients: the engine and central differences of your loss L",
    "section.shapes": "Shapes and independent batch elements",
    "section.single": "A single token: no other key to compare with",
    "section.properties": "Properties of the head",
    "section.rejected": "Rejected inputs",
    "section.checks": "Numeric checks",
    "section.scale_example": "The scale example",
    "section.history": "History: where queries and keys come from",
    "section.hand_inputs": "The second example, to compute by hand: Q, K, V",
    "section.hand_scores": "The second example: scores QKᵀ and S = QKᵀ/√d_k",
    "section.hand_weights": "The second example: softmax along rows, step by step",
    "section.hand_output": "The second example: mixing values, O = AV",
    "hand.exponentials": "exponentials",
    "hand.exp_sum": "their sum",
    "role.query": "queries: row i, what position i looks for",
    "role.key": "keys: row j, what queries find position j by",
    "role.value": "values: row j, what position j gives to the mix",
    "axis.key": "keys",
    "axis.batch": "batch (B)",
    "axis.tokens": "tokens (T)",
    "axis.width": "width",
    "gradcheck.passed": "passed",
    "gradcheck.failed": "FAILED",
    "replay.bitwise": "bitwise identical",
    "replay.differs": "DIFFERS",
    "history.recurrent-fixed-context": "Fixed recurrent context: the encoder squeezes the whole source sentence into "
        "one vector of a fixed length, and at every step the decoder sees only that.",
    "history.additive-encoder-decoder-alignment": "Additive encoder–decoder alignment: at every step the decoder "
        "computes the weights of the encoder annotations anew and receives their weighted sum.",
    "history.scaled-dot-product-self-attention": "Scaled dot-product self-attention: in one layer the queries and "
        "keys of one sequence are compared, every query with every key.",
    "history.encoder_decoder": "alignment: queries are decoder states, keys are encoder annotations",
    "history.self": "self-attention: queries and keys are positions of one sequence",
    "history.pairs.alignment": "encoder–decoder alignment: query → key",
    "history.pairs.self": "self-attention: query → key",
    "composition.leaf": "input",
    "composition.read": "the same from left to right: transpose K → matmul → multiply by 1/√d_k → log_softmax over "
        "the keys → exp → matmul with V",
    "gradient.engine": "engine",
    "gradient.closed": "formulas, L = ⟨O, Ō⟩",
    "gradient.not_run": "{name} has no gradient yet: run the cell with L.backward() first.",
    "gradient.not_a_loss": "Pass the loss to the check: one number computed from the inputs, such as L = (O * "
                           "O_bar).sum().",
    "gradient.not_in_graph": "{name} is not an input of this loss with requires_grad=True: the check compares the "
                             "gradients of the loss's own inputs.",
    "gradient.accumulated": "Every gradient is {times} times what the differences give: backward adds to .grad, and "
                            "the backward cell ran {times} times without clearing it.",
    "gradient.numeric": "differences",
    "gradient.verdict": "check on {count} coordinates (step {step}, tolerance {tolerance})",
    "sums.rows": "row sums of A",
    "sums.columns": "column sums of A",
    "figure.axis.query_rows": "query positions (rows)",
    "figure.axis.key_rows": "key positions (rows)",
    "figure.axis.value_rows": "value positions (rows)",
    "figure.axis.key_columns": "key positions (columns)",
    "figure.axis.features": "features (columns)",
    "figure.axis.value_features": "value features (columns)",
    "figure.raw": "QKᵀ: dot products",
    "figure.scaled": "S = QKᵀ/√d_k: scaled scores",
    "figure.weights": "A = softmax({of}) along rows",
    "figure.weights_columns": "A = softmax({of}) along columns, over the queries",
    "figure.scaled_by": "S = QKᵀ/{divisor}: scaled scores",
    "figure.scaled_none": "S = QKᵀ, not scaled",
    "figure.raw_name": "scores",
    "figure.scaled_name": "scaled scores",
    "figure.weights_name": "weights",
    "figure.output_name": "outputs",
    "figure.exponentials_name": "exponentials",
    "figure.row_sums_name": "row sums",
    "figure.column_sums_name": "column sums",
    "figure.rows_not_one": "Not every row sums to 1, so these are not the weights of a softmax along rows.",
    "figure.output": "O = AV: mixtures of values",
    "figure.exponentials": "e^S: the softmax's numerators",
    "figure.row_sums": "row sums of A: Σ_j A_ij",
    "figure.column_sums": "column sums of A: Σ_i A_ij",
    "figure.axis.sum": "sum",
    "figure.axis.query_columns": "query positions (columns)",
    "fold.own_values": "These are the numbers your cells computed, not the chapter's answer to “{title}”. {difference}",
    "given.cells_changed": "A cell above changed the inputs or a step.",
    "figure.grad_output": "Ō = ∂L/∂O: the incoming gradient",
    "figure.grad_value": "V̄ = ∂L/∂V: the values' gradient",
    "figure.grad_weights": "Ā = ∂L/∂A: the weights' gradient",
    "figure.grad_scores": "S̄ = ∂L/∂S: the scaled scores' gradient",
    "figure.grad_query": "Q̄ = ∂L/∂Q: the queries' gradient",
    "figure.grad_key": "K̄ = ∂L/∂K: the keys' gradient",
    "show.matrix": "a matrix of shape {shape}",
    "show.none": "There is nothing to show: this is None. So is .grad before the backward pass, or on a tensor "
                 "computed from others (only inputs keep a gradient, and tensors on which retain_grad() was called).",
    "show.not_a_matrix": "show draws matrices: a vector, a matrix or a batch of matrices (shape [B, T, d]) with no "
                         "empty axis; this one has shape {shape}.",
    "show.unknown_role": "show has no role '{role}'. The roles: {known}.",
    "show.role_alone": "A role ('{role}') comes right after the tensor it names: show(A, \"weights\").",
    "trace.title": "Trace: how every row goes from scores to output",
    "trace.legend": "A block's role shows in its frame style and its caption, so no colour is needed to read it.",
    "trace.folded": "Each section is folded: open the one you want to check.",
    "trace.raw": "each cell is a dot product q_i · k_j",
    "trace.scaled": "the same scores times 1/√d_k",
    "trace.weights_of": "weights of row {query}",
    "error.input-rank": "Three axes are needed: batch, tokens, features.",
    "error.batch-mismatch": "Queries, keys and values must share one batch size.",
    "error.token-mismatch": "Queries, keys and values must describe the same number of tokens.",
    "error.empty-token-axis": "With no key position at all there is nothing to normalize a row over.",
    "error.query-key-width-mismatch": "A dot product needs equal widths: queries and keys must share d_k.",
    "error.empty-feature-width": "A feature width cannot be zero.",
    "error.non-finite-input": "Only finite numbers are accepted; NaN and ±∞ are rejected.",
    "error.stage-failure": "The inputs are finite, but at one forward stage the numbers left float64's range.",
    "refusal.input-rank": "the {operand} have rank {rank}",
    "refusal.batch-mismatch": "batch size {query} for the queries, {key} for the keys, {value} for the values",
    "refusal.token-mismatch": "{query} tokens in the queries, {key} in the keys, {value} in the values",
    "refusal.empty-token-axis": "the inputs have {tokens} tokens",
    "refusal.query-key-width-mismatch": "d_k is {query} for the queries, {key} for the keys",
    "refusal.empty-feature-width": "the {operand} have feature width {width}",
    "refusal.non-finite-input": "entry {index} of the {operand} is {value}",
    "refusal.stage-failure": "computing {stage} failed",
    "refusal.operand.query": "queries",
    "refusal.operand.key": "keys",
    "refusal.operand.value": "values",
    "widget.scale.slider": "score factor",
    "widget.scale.to_default": "1/√d_k ≈ {value}",
    "widget.scale.to_one": "1 (no scale)",
    "widget.scale.title": "A = softmax({factor} · QKᵀ) along rows",
    "widget.scale.pair": "example [1, 0]: weight of the first position at factor {factor}",
    "widget.scale.repr": "Widget: score factor from 0 to 2 (needs a running kernel)",
    "widget.width.slider": "d_k",
    "widget.width.row_title": "The first query's row of weights at d_k = {key_width}, largest first",
    "widget.width.row_weight": "weight",
    "widget.width.rank": "the key's place in the row",
    "widget.width.var_title": "Variance of the dot products q·k",
    "widget.width.variance": "variance (log scale)",
    "widget.width.raw": "unscaled",
    "widget.width.scaled": "divided by √d_k",
    "widget.width.max_title": "Mean largest weight in a row ({tokens} keys)",
    "widget.width.max_weight": "largest weight",
    "widget.width.entropy_title": "Mean row entropy (uniform: {uniform})",
    "widget.width.entropy": "entropy, nats",
    "widget.width.jacobian_title": "Mean norm of the softmax Jacobian",
    "widget.width.jacobian": "‖diag(a) − aaᵀ‖ (Frobenius norm)",
    "widget.width.numbers": "d_k = {key_width}:\n"
        "  variance of q·k: {raw} unscaled, {scaled} after dividing by √d_k;\n"
        "  mean largest weight in a row: {max_raw} unscaled, {max_scaled} scaled;\n"
        "  mean entropy: {entropy_raw} nats unscaled, {entropy_scaled} scaled (a uniform row: {uniform});\n"
        "  mean norm of the softmax Jacobian ‖diag(a) − aaᵀ‖ (Frobenius): {jacobian_raw} unscaled, "
        "{jacobian_scaled} scaled.",
    "widget.width.repr": "Widget: d_k from 1 to 1024 (needs a running kernel)",
    "widget.editor.Q": "Q — queries",
    "widget.editor.K": "K — keys",
    "widget.editor.V": "V — values",
    "widget.editor.blank": "empty: type a number",
    "widget.editor.unreadable": "not a number: “{typed}”; type a number such as 1.5 or -2",
    "widget.editor.kept": "Not every field could be read (see the notes under them); below is still the "
        "computation from the last inputs whose fields could all be read.",
    "widget.editor.changed": "Numbers below that changed: {count}; they are in bold and underlined.",
    "widget.editor.unchanged": "None of the numbers below changed.",
    "widget.editor.reset": "Reset",
    "widget.editor.repr": "Widget: editable Q, K, V (needs a running kernel)",
    "mis.rows-swapped": "The answer's rows are out of place: row i belongs to query q_i, so check you did not take "
        "another row's answer.",
    "mis.scaled-too-early": "These scores are already scaled. The question asks for the raw dot products QKᵀ, before "
        "any scaling.",
    "mis.features-for-positions": "The wrong axes were multiplied: QᵀK pairs feature columns, but positions must "
        "be paired — row q_i with row k_j, that is Q·Kᵀ.",
    "mis.query-with-query": "That compares queries with queries (or keys with keys). Each score multiplies a "
        "query row by a key row: (QKᵀ)_ij = q_i · k_j.",
    "mis.missing-scale": "That is softmax of the raw scores QKᵀ with the factor 1/√d_k forgotten: divide "
        "the scores by √d_k first, then normalize.",
    "mis.columns-normalized": "You normalized columns, not rows: softmax for a query runs along its row over "
        "the key positions, and it is the row that sums to 1.",
    "mis.wrong-row": "That is another query's row. The weights of query q_0 are asked for.",
    "mis.not-normalized": "Those are still scores, not weights: softmax turns a row of scores into "
        "non-negative weights that sum to 1.",
    "mis.weights-for-scores": "Those are already the weights A — the scores after softmax. The scores themselves are "
        "asked for: the dot products q_i · k_j, before scaling and normalizing.",
    "mis.weights-for-output": "Those are the weights A, not the output: the output O = A·V mixes the value rows with "
        "these weights.",
    "mis.output-for-weights": "That is the output O = A·V, but the weights A are asked for: not the mixture, but the "
        "shares in which the values are mixed.",
    "mis.weights-transposed": "That is Aᵀ: row i here is column i of the weight matrix. Query q_i's weights are row i "
        "of A, and it is the rows that sum to 1.",
    "mis.scores-not-transposed": "That is QK, without the transpose: row q_i met the columns of K, not its rows. A "
        "score pairs a query with a key, q_i · k_j, so K is transposed first: QKᵀ.",
    "mis.elementwise-scores": "That is Q ⊙ K: the products of matching coordinates, left unsummed. A score is a dot "
        "product, the sum of those products along a query's row and a key's row: one number for each query and key.",
    "mis.values-for-keys": "The values took the keys' place: that is QVᵀ. The queries are matched with the keys, QKᵀ; "
        "the values come in only at the end, mixed by the weights.",
    "mis.sign-slipped": "A sign slipped in one dot product: one term, or the whole product, has the wrong sign. Go "
        "over each q_i · k_j again, term by term, watching the minus signs.",
    "mis.log-weights": "Those are the logarithms of the weights (log-softmax), and a weight is never negative: the "
        "weights are the shares e^s / Σ e^s themselves.",
    "mis.softmax-skipped": "The scores mixed the values without softmax: scores become weights only after softmax, "
        "non-negative and summing to 1 along each row.",
    "mis.other-variant": "That is the answer for another variant you have seen. Compute from this variant's Q, K and "
        "V.",
    "mis.mask-zeroes-scores": "The future scores were set to 0, but a key scored 0 still adds e⁰ = 1 to the sum. A "
        "mask sets them to −∞: their exponentials are 0, and the row shares its weight among the keys j ≤ i only.",
    "mis.temperature-ignored": "At least one row is the plain softmax of the scores, as at τ = 1. Dividing by τ "
        "changes the weights: think what the numbers s/τ become as τ → 0 and as τ → ∞.",
    "mis.root-for-scale": "The second number is √d_k, the divisor; the scale asked for is the factor 1/√d_k that "
        "multiplies the scores.",
    "mis.scale-inverted": "The scores were multiplied by √d_k, but the head divides them by √d_k: the scale 1/√d_k "
        "makes the scores smaller, not larger.",
    "mis.e-as-three": "It looks as if e was taken as 3: e ≈ 2.718, and 3 gives the largest score too large a share. "
        "Take e ≈ 2.72.",
    "mis.sigmoid-weights": "Each score went through a sigmoid 1/(1 + e^(−s)) on its own, so the row does not sum to "
        "1. Softmax divides each score's exponential by the sum of the whole row's exponentials.",
    "mis.result-transposed": "The answer is transposed: its rows and columns are swapped. Row i belongs to query q_i.",
    "mis.cosine-scores": "The products were divided by the vectors' lengths: those are cosines. A score is the dot "
        "product q_i · k_j itself; it is divided by √d_k only, and only in the next step.",
    "mis.term-dropped": "One dot product is missing a term. Go over each q_i · k_j again and add all the products of "
        "matching coordinates.",
    "mis.widths-added": "The widths are not added: the output takes its last axis from V, d_v, while d_k disappears "
        "in the dot products.",
    "mis.output-reversed": "The output's coordinates are swapped: the output is the value vector itself, in its own "
        "order.",
    "mis.proportional-weights": "Those are the scores' own shares, s / Σ s, not a softmax: the weights are e^(s/τ) / "
        "Σ e^(s/τ). Think what the numbers s/τ become as τ → 0 and as τ → ∞.",
    "mis.heads-for-width": "Your first number is the number of heads h, not a head's width: d_k = d_model / h.",
    "mis.weights-factor-missing": "That is Ō itself: the factor Aᵀ is lost. V̄ = AᵀŌ — row j gathers the rows of Ō "
        "with the weights the queries gave to position j.",
    "mis.values-for-upstream": "Here Aᵀ multiplies V, but it should multiply the upstream gradient Ō: V̄ = AᵀŌ.",
    "mis.output-for-values": "The output O stands where the values V should: Ā = ŌVᵀ, with the values themselves.",
    "mis.weights-for-upstream": "The weights A stand where the upstream gradient Ō should: Ā = ŌVᵀ.",
    "mis.exponentials-for-scores": "Those are already the scores' exponentials, a step of softmax. The scores "
        "themselves are asked for, before the exponential.",
    "mis.other-example-scale": "The scale is the other example's: this one has its own width d_k, and the scores are "
        "divided by its root, √d_k.",
    "mis.matrix-normalized": "The exponentials were divided by the sum over the whole matrix, but each row is "
        "normalized on its own: every query has its own weights summing to 1.",
    "mis.divided-by-largest": "The exponentials were divided by the largest of them, but they are divided by their "
        "sum, so that the row of weights sums to 1.",
    "mis.sums-multiplied": "The sums of the query's and the key's coordinates were multiplied. A dot product adds the "
        "products of matching coordinates: q_i · k_j = Σ_m q_im k_jm.",
    "mis.input-misread": "One of the inputs seems misread: the sign of an entry of Q or K, or two rows of V in each "
        "other's place. Check the inputs against the question.",
    "mis.rounded-too-early": "The weights were rounded on the way, before the next step used them, and the small ones "
        "were lost. Round only the answer; keep more digits on the way.",
    "mis.weights-gradient-for-upstream": "Here Aᵀ multiplies Ā = ŌVᵀ, but it should multiply the upstream gradient Ō "
        "itself: V̄ = AᵀŌ.",
    "mis.output-summed": "The output is a vector, the value row itself, not the sum of its coordinates.",
    "mis.softmax-mixed-in": "That is A ⊙ ŌVᵀ: the weights come in only at the next step, through the softmax. Ā = ŌVᵀ "
        "itself is asked for.",
    "given.inputs_changed": "Inputs changed: {names}.",
    "given.stage_unnamed": "Your cells compute {name} differently from the head.",
    "given.two": "{first} {second}",
    "graph.axis": "The softmax runs along axis {axis}; the head normalizes each row along the keys, axis 2.",
    "graph.divisor": "S is the scores divided by {divisor}; the head divides them by √d_k = {root}.",
    "graph.factor": "S is the scores multiplied by {factor}; the head multiplies them by 1/√d_k = {scale}.",
    "graph.no_scale": "S is the scores themselves; the head divides them by √d_k = {root}.",
    "graph.swapped": "The scores are KQᵀ: Q and K are in each other's place; the head computes QKᵀ.",
    "mis.other-example": "That is the answer for the chapter's other example. Compute from this exercise's Q, K and V.",
    "mis.scale-by-dk": "The scores are divided by d_k, but the head divides by √d_k: the root keeps the dot product's "
        "variance near one for independent components with mean 0 and variance 1, while dividing by d_k would shrink "
        "it to 1/d_k (27.4 tells why, and when).",
    "mis.scale-by-root-t": "The scores are divided by √T, the root of the number of tokens. The scale follows the "
        "width of the queries and keys: divide by √d_k.",
    "mis.scale-by-root-dv": "The scores are divided by √d_v, the root of the value width. The scale follows the width "
        "of the queries and keys: √d_k.",
    "mis.scale-after-softmax": "The factor 1/√d_k was applied after the softmax, to the weights, and the row no "
        "longer sums to 1. It is the scores that are divided, before the softmax.",
    "mis.no-exponential": "The scores are divided by their sum with no exponential: such \"weights\" can be negative "
        "or above one. Softmax takes e^s first, then divides by the sum.",
    "mis.exponentials-not-normalized": "The exponentials are taken but not divided by their sum, and a row of weights "
        "must sum to 1: divide each e^s by the sum of its row's exponentials.",
    "mis.hard-attention": "All the weight went to the largest score. In a row of two or more keys softmax never gives "
        "0 or 1 in exact arithmetic: every key gets its share e^s / Σ e^s, even the one with the lowest score (float64 "
        "rounds a weight to 1 only once its score leads the others by about 37).",
    "mis.uniform-weights": "Equal weights — as equal scores would give. Here the row's scores differ, and softmax "
        "gives the larger score the larger weight.",
    "mis.row-reversed": "The row of weights is reversed: the first weight belongs to key k_0, the second to k_1. The "
        "key with the larger score gets the larger weight.",
    "mis.shape-axes-swapped": "The axes are out of order: the output's shape runs [B, T, d_v] — batch, tokens, value "
        "width.",
    "mis.batch-axis-dropped": "The batch axis is missing: the output has three axes, [B, T, d_v], the first being the "
        "batch size B.",
    "mis.lone-token-attends-to-nothing": "A lone token does have something to compare with — itself: its only key "
        "gets weight 1, and the output is its value.",
    "mis.equal-keys-go-to-first": "Equal scores do not pick the first key: softmax of equal numbers splits the weight "
        "evenly.",
    "mis.row-sum": "Your weights sum to {total}, but a row of weights after softmax always sums to 1.",
    "mis.weights-shape-for-output": "That is the shape of the weight matrix A: [B, T, T]. The output O = AV takes "
        "its last axis from the values: [B, T, d_v].",
    "mis.dk-for-dv": "That uses the query and key width d_k. The output mixes rows of V, so its width "
        "is the value width d_v.",
    "mis.single-weight-not-one": "A single token's weight row has one key, and softmax makes a row sum to 1: that "
        "weight is 1 whatever the score.",
    "mis.scale-on-values": "The weight is right, but the factor 1/√d_k acts on the scores, not on the "
        "values: the output is an unscaled mix of rows of V.",
    "mis.single-output": "The weight is right. The output is a weighted sum of value rows, and here there "
        "is one row with weight 1.",
    "mis.identical-keys-unequal": "Identical keys give a query identical scores, and softmax of equal numbers is "
        "uniform: no position gets a larger weight.",
    "mis.transposed-scores": "The scores are transposed here: that is KQᵀ (or weights taken from it), where row i "
        "belongs to key k_i. In QKᵀ row i is query q_i and column j is key k_j: (QKᵀ)_ij = q_i · k_j. In this example "
        "QKᵀ is not symmetric, so the difference shows.",
    "mis.mixed-keys": "You mixed the key rows: that is A·K. The weights mix the values: o_i = Σ_j A_ij v_j, so the "
        "output is A·V, d_v wide.",
    "mis.transposed-weights": "That uses Aᵀ: you built row o_i from column i of A. Query q_i's output mixes the "
        "values with the weights of its own row A_i,: — O = A·V, not Aᵀ·V.",
    "mis.temperature-swapped": "The limits are swapped. As τ → 0 the numbers s/τ spread apart and the largest "
        "score takes all the weight; as τ → ∞ every s/τ goes to 0 and the weights even out.",
    "mis.weights-not-transposed": "That is AŌ: A was not transposed. Row j of V̄ collects the weights that every "
        "query gave to position j, which is column j of A. So V̄ = AᵀŌ.",
    "mis.value-gradient-is-weights-gradient": "That is Ā = ŌVᵀ, the gradient of the weights, not of the values. The "
        "gradient reaches the values through the weights: V̄ = AᵀŌ.",
    "mis.output-for-gradient": "That is the forward pass's output O = AV. The backward pass multiplies other things: "
        "the upstream gradient Ō with the weights A or with the values V.",
    "mis.values-not-transposed": "That is ŌV: V was not transposed. Cell Ā_ij is the dot product of row ō_i with row "
        "v_j, so Ā = ŌVᵀ.",
    "mis.weights-gradient-is-value-gradient": "That is V̄ = AᵀŌ, the gradient of the values. The gradient reaches the "
        "weights through the values: Ā = ŌVᵀ.",
    "mis.softmax-backward-skipped": "That is Ā, the gradient of the weights, before the softmax. To reach the scores "
        "it has to pass through the softmax's derivative: S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
    "mis.row-term-missing": "You multiplied A and Ā entry by entry but did not subtract the row's number ⟨a, ā⟩ from "
        "Ā. Without it the rows of S̄ do not sum to 0, and they must: adding one number to every score of a row "
        "leaves the weights unchanged.",
    "mis.row-term-unweighted": "You subtracted the plain mean of ā, but the number to subtract is the weighted one, "
        "⟨a, ā⟩ = Σ_j a_j ā_j, with the row's weights. Then s̄ = a ⊙ (ā − ⟨a, ā⟩) sums to 0.",
    "mis.row-term-after-product": "You subtracted ⟨a, ā⟩ after multiplying, from a ⊙ ā. The brackets matter: first "
        "the difference ā − ⟨a, ā⟩, then the product with a.",
    "mis.jacobian-diagonal-only": "You took only the Jacobian's diagonal, a_j(1 − a_j), as for a sigmoid. But in a "
        "softmax every weight depends on every score of the row: ∂a_j/∂s_m = a_j(δ_jm − a_m), and the off-diagonal "
        "terms −a_j a_m enter s̄ as well.",
    "mis.weights-and-gradient-swapped": "You swapped a and ā: ā ⊙ (a − ⟨a, ā⟩). The weights a stand outside, from "
        "the derivative ∂a_j/∂s_m = a_j(δ_jm − a_m), and the number is subtracted from ā: s̄ = a ⊙ (ā − ⟨a, ā⟩).",
    "mis.weights-column-for-row": "You took a column of A, the weights that different queries gave key k_0, not "
        "query q_0's row. Softmax normalizes a row, and a = A_0 is a row.",
    "mis.score-gradient-unscaled-weights": "Those weights are softmax of the scores QKᵀ without the factor 1/√d_k. "
        "Use the row a that the question gives: the weights after the scale.",
    "mis.gradient-rows-not-zero": "Your row s̄ sums to {sums}, but every row of S̄ sums to 0: adding one number to a "
        "whole row of scores leaves the weights unchanged, so the gradient along that direction is zero.",
    "mis.weight-factor-missing": "You subtracted ⟨a, ā⟩ but did not multiply the difference by the weights. The "
        "softmax's derivative ∂a_j/∂s_m = a_j(δ_jm − a_m) starts with a_j, so S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
    "mis.raw-score-gradient": "You multiplied by 1/√d_k: that gives the gradient of the scores QKᵀ before the scale. "
        "The question asks for S̄, the gradient of the scaled scores S; the factor 1/√d_k comes in at the next step, "
        "in Q̄ and K̄.",
    "mis.mask-keeps-future": "The mask is upside down: you left query q_i the keys j ≥ i, the future. A causal "
        "mask keeps j ≤ i — the past and the position itself — and hides the later keys.",
    "mis.mask-hides-self": "You hid the position's own key too, but a causal mask keeps j ≤ i, including j = i. "
        "So q_0 keeps exactly one key, k_0, with weight 1.",
    "mis.mask-not-renormalized": "You zeroed the hidden weights of the finished A, and the rows no longer sum to "
        "1. The mask acts before softmax: the hidden keys' scores become −∞, and softmax normalizes the row over "
        "the keys that remain.",
    "mis.mask-ignored": "Those are the unmasked weights: every row still sees all the keys. A causal mask hides the "
        "keys j > i from q_i.",
    "mis.dk-is-dmodel": "That is the whole model's width. The heads share d_model: each has d_k = d_model / h, and "
        "the scale uses that width.",
    "mis.heads-multiply-width": "Heads do not multiply the width; they split d_model into h parts: d_k = "
        "d_model / h.",
    "mis.scale-without-root": "d_k is right, but the scale is 1/√d_k, not 1/d_k: dividing by the root keeps the "
        "variance of the dot products near 1 when the components of q and k are independent, with mean 0 and "
        "variance 1 (27.4).",
    "cost.table_title": "B = {batch}, d_k = {key_width}, d_v = {value_width}; multiply-adds and bytes (float64)",
    "cost.forward_backward": "forward+backward",
    "cost.score_bytes": "one [B,T,T]",
    "cost.record_bytes": "record",
    "cost.input_bytes": "Q, K, V",
    "cost.doubling_title": "Each row doubles one quantity, starting from B = {batch}, T = {tokens}, d_k = "
        "{key_width}, d_v = {value_width}; each cell is the growth factor",
    "cost.doubled": "doubled",
    "cost.time_title": "Forward+backward time, ms (B = {batch}, d = {width})",
    "cost.time_axis": "ms (log scale)",
    "cost.quadratic": "∝ T² (through the last point)",
    "cost.memory_title": "numpy's peak memory over forward+backward, MiB",
    "cost.memory_axis": "MiB (log scale)",
    "cost.one_score_matrix": "one [B,T,T] matrix",
    "section.dot_products": "Dot products of each query with every key",
    "section.score_gradient": "Step 3 back: through each row's softmax to the scores, S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā))",
    "backward.row_sum": "sum of the row of S̄",
    "section.gradient_table": "Gradients: the engine, the formulas and central differences",
    "section.output_shape": "Shapes of the weights and the output",
    "section.sums": "Row and column sums of A",
    "section.record": "The record of the forward pass",
    "section.composition": "The primitives the output is built from",
    "section.future": "How much weight each query gives to later positions",
    "section.pairs": "Query → key pairs",
    "terms.computed": "multiplied out",
    "batch": "batch",
    "why": "why",
    "stage.raw-scores": "the raw scores QKᵀ",
    "stage.scaled-scores": "the scaled scores",
    "stage.row-log-softmax": "log_softmax along rows",
    "stage.probabilities": "the attention weights",
    "stage.value-mixture": "the weighted mix of values",
    "section.error": "Why the head refused",
    "section.contributions": "An attention weight and the contribution it actually makes",
    "contributions.weights": "attention weights",
    "contributions.sizes": "norm of the term A_ij·v_j in the output o_i",
    "code.probe.weights": "on a probe where V = [I | 0], so that the output is the weights themselves (T = {tokens}, "
        "d_k = {key_width}, d_v = {value_width}),",
    "code.probe.large": "on a probe with scores up to 800,",
    "code.probe.backward": "on a probe with T = {tokens}, d_k = {key_width}, d_v = {value_width}",
    "code.case.worked": "on the worked example",
    "code.case.second": "on the second example (Q and K 3×4, V 3×2; you computed it by hand in 27.3)",
    "code.case.random": "on a hidden case with B = {batch}, T = {tokens}, d_k = {key_width}, d_v = {value_width}",
    "code.case.single": "on a hidden case with one token (T = 1)",
    "code.case.large": "on a hidden case with large scores (about 10³)",
    "section.bug_sums": "The buggy head on the worked example: row and column sums of A",
    "skill.dot-products": "dot products QKᵀ",
    "skill.scaling": "the scale 1/√d_k",
    "skill.row-softmax": "softmax along rows",
    "skill.mixing": "mixing values",
    "skill.shapes": "array shapes",
    "skill.properties": "the head's properties",
    "skill.gradients": "gradients",
    "skill.history": "attention's history",
    "skill.causal-mask": "the causal mask (chapter 28)",
    "notebook.01_predict": "What each query attends to",
    "notebook.02_scores_softmax_mixture": "Scores, scale, softmax and the mix",
    "notebook.03_shapes": "Rows, columns, the shape rule, the second example",
    "notebook.04_scaling": "Why divide by √d_k",
    "notebook.05_history": "From a recurrent context to self-attention",
    "notebook.06_head_from_primitives": "The head from differentiable operations",
    "notebook.07_gradients": "Gradients",
    "notebook.09_next": "What the head lacks for training a decoder",
    "notebook.10_exercises": "Review",
    "review.all_mastered": "Every skill of the chapter is mastered. Below remain the questions that apply the chapter "
        "in new circumstances.",
    "review.skill": "Skill “{skill}”: {first_right} of {required} counted.",
    "review.return_to": "This skill's questions have no fresh examples. If you have not answered them yet, do (an "
        "answer right at the first attempt, without hints, counts): {titles}.",
    "review.title": "“{title}”",
    "review.above": "The example above, “{title}”, practises it too: an answer to it counts for both skills.",
    "review.fresh": "A fresh example to practise on:",
    "plane.qk_title": "q solid, k dashed",
    "plane.v_title": "v double; outputs: ● o₀, ■ o₁",
    "plane.scores": "Scores q·k",
    "plane.bars": "Weights (a row sums to 1)",
    "plane.bars_columns": "Weights (a column sums to 1)",
    "plane.weights": "Weights — {rows}.",
    "plane.alt": "The plane of the worked example's vectors: {vectors}. {weights} Outputs: {outputs}.",
    "plane.projections": "Dotted lines: the keys' lines; fine dashes: the perpendiculars from {name} to them, ▪ their "
        "feet",
    "plane.keys": "Below the figure each vector has two sliders, x and y: the arrow keys move it by 0.5, Shift with "
        "an arrow key by 0.1. With the mouse, drag an arrow's tip in the figure.",
    "plane.repr": "The vector plane: drag any arrow's tip with the mouse, or move it with its x and y sliders below "
        "the figure (needs a running kernel).",
    "plane.title": "The worked example's vectors in a plane: queries, keys, values and outputs",
    "plane.reset": "Back to the worked example",
    "plane.reset_given": "Back to the cell's inputs",
    "stages.follows": "{widget} computes as your cells do: the scores {divided}, the softmax {along}.",
    "stages.along_rows": "along each row",
    "stages.along_columns": "along each column, over the queries",
    "stages.keeps": "Your cells compute A in a way {widget} cannot follow, so it shows the chapter's head: its first "
                   "row of weights is {chapter}, yours {cells}.",
    "stages.plane": "the plane",
    "stages.editor": "the editor",
    "widget.scale.own_inputs": "The slider below works on the chapter's worked example, not on your cells.",
    "widget.width.own_inputs": "The slider below draws queries and keys of its own at random, not your cells'.",
    "plane.two_by_two": "The plane holds two rows of two coordinates only: {name} here has shape {shape}.",
    "plane.unknown": "There is no vector “{name}” on the plane; there are: {names}.",
    "plane.not_finite": "The coordinates of {name} must be finite numbers.",
    "challenge.form": "This task's answer is the whole vector plane: {form}.",
    "challenge.others": "In this task only {name} moves, but these have moved too: {moved}. Press "
        "“{reset}” and move only {name}.",
    "challenge.unmoved": "{name} is still at its starting point {at}: move it on the plane above and check again.",
    "unit.B": "B",
    "unit.KiB": "KiB",
    "unit.MiB": "MiB",
    "unit.GiB": "GiB",
    "record.shape": "shape {shape}",
    "history.name.decoder-state": "decoder state {index}",
    "history.name.encoder-annotation": "encoder annotation {index}",
    "history.name.hidden-position": "position {index}",
    "cost.impl.head": "the chapter's head",
    "cost.impl.tiled": "tiled head",
    "cost.impl.torch": "PyTorch, the same steps",
    "cost.impl.sdpa": "PyTorch SDPA",
    "cost.block.slider": "tile size",
    "cost.block.axis": "tile size",
    "cost.block.time_title": "Tiled head, T = {tokens}, B = {batch}, d = {width}: time, ms",
    "cost.block.memory_title": "numpy's peak memory, MiB",
    "cost.block.head_record": "the record of the chapter's head (three [B,T,T] and the output)",
    "cost.block.numbers": "tile {block}: {ms} ms, peak {peak} MiB; the record of the chapter's head at the "
        "same sizes takes {record} MiB.",
    "cost.block.repr": "Widget: the tiled head's tile size (needs a running kernel)",
}
