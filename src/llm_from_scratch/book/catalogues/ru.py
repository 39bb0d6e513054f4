"""Russian, the book's first language: strings every chapter shares (feedback, answers, forms, frames)."""

STRINGS: dict[str, str] = {
    "shape": "Форма",
    "yes": "да",
    "no": "нет",
    "frame.name.query": "запрос",
    "frame.name.key": "ключ",
    "frame.name.value": "значение",
    "frame.name.score": "оценка",
    "frame.name.weight": "вес",
    "figure.frame.query": "тонкая сплошная рамка — запросы",
    "figure.frame.key": "штриховая рамка — ключи",
    "figure.frame.value": "двойная рамка — значения",
    "figure.frame.score": "пунктирная рамка — оценки",
    "figure.frame.weight": "толстая сплошная рамка — веса внимания",
    "figure.mark": "пунктирная вертикаль — выбранное значение {label}",
    "widget.snapshot": "Снимок при значениях по умолчанию, сохранённый в тетради. Ниже — живой виджет; для него нужно "
        "работающее ядро.",
    "widget.exercise.title": "Упражнение: {title}.",
    "widget.exercise.choose": "вариант",
    "widget.exercise.options": "варианты ответа к упражнению «{title}»",
    "widget.exercise.letters": "{letters} или {last}",
    "widget.exercise.answer": "ответ",
    "widget.exercise.form": "Как записать ответ",
    "widget.exercise.check": "Проверить",
    "widget.exercise.hint": "Подсказка",
    "widget.exercise.new_example": "Новый пример",
    "widget.exercise.variant": "Новый пример {n}.",
    "widget.exercise.reveal": "Показать ответ",
    "widget.exercise.repr": "Поле ответа к упражнению «{title}»: «Проверить», «Подсказка», «Показать ответ» (нужно "
        "работающее ядро)",
    "answer.missing": "Замените ... своим ответом — {form}.",
    "answer.blank": "Ответ пустой. Нужно: {form}.",
    "answer.words": "В ответе есть слова или посторонние знаки ({found}), а нужны только числа: {form}.",
    "answer.ambiguous_comma": "Запись «{typed}» читается двояко — запятые можно принять и за разделители чисел, и за "
        "десятичные: {readings}. Дробную часть пишите через точку или разделяйте числа точкой с запятой. Нужно: "
        "{form}.",
    "answer.read_as": "Прочитано: {numbers} (форма {shape}).",
    "answer.malformed": "Запись не разобрать: проверьте скобки и запятые (дробная часть — через точку). "
        "Нужно: {form}.",
    "answer.not_numbers": "Ответ должен состоять из чисел. Нужно: {form}.",
    "answer.non_finite": "NaN и бесконечность не подходят: все числа в ответе должны быть конечными. Нужно: {form}.",
    "answer.too_large": "Чисел такого размера (больше миллиона по модулю) здесь не бывает. Нужно: {form}.",
    "answer.beyond_float64": "Такое число не помещается даже в float64 (его предел — около 1.8·10³⁰⁸), а в ответе "
        "здесь числа не больше миллиона. Нужно: {form}.",
    "answer.too_long": "Ответ слишком длинный: больше {limit} знаков. Нужно: {form}.",
    "answer.too_many": "В ответе слишком много чисел: больше {limit}. Нужно: {form}.",
    "answer.too_deep": "Скобки вложены слишком глубоко: больше {limit} уровней. Нужно: {form}.",
    "answer.choice_missing": "Выберите один вариант — {letters}.",
    "answer.choice_form": "Ответ — одна буква варианта: {letters}.",
    "feedback.correct": "Верно.",
    "feedback.wrong": "Пока нет.",
    "feedback.right": "Ответ совпал с тем, что только что вычислил движок.",
    "feedback.right_rounded": "Верно с точностью до округления; точное значение — {exact}.",
    "feedback.partial": "Верно для {right}; неверно для {wrong}.",
    "hint.locked": "Подсказки открываются после первой попытки: сначала попробуйте ответить сами.",
    "hint.step": "Подсказка {step} из {steps}: {hint}",
    "hint.first_number": "первое число ответа — {first}.",
    "hint.first_row": "на разобранном примере первая строка ответа — {first}.",
    "reveal.locked": "Сначала дайте свой ответ, пусть даже неверный: ответ откроется после попытки.",
    "reveal.answer": "Ответ: {answer}.",
    "progress.note.backup": "Файл прогресса {path} не удалось прочитать: он сохранён как {backup}, а прогресс "
        "начат заново.",
    "progress.note.memory": "Прогресс не сохраняется в {path} ({reason}): он хранится только в этом ядре и "
        "пропадёт после перезапуска. Другой путь можно задать переменной окружения "
        "LLM_FROM_SCRATCH_PROGRESS.",
    "progress.header": "Упражнения главы, проверенные в любой тетради и любом ядре:",
    "progress.right": "верно",
    "progress.tried": "есть попытки, пока неверно",
    "progress.open": "не проверялось",
    "export.description": "Прогресс учеников: сводная таблица навыков для преподавателя.",
    "export.help": "свести файлы прогресса учеников в одну таблицу",
    "export.csv": "вывести таблицу в формате CSV",
    "export.language": "язык названий навыков",
    "export.not_a_store": "это не файл прогресса",
    "export.skipped": "{path}: не прочитан ({reason}) и пропущен; файл не изменён.",
    "export.unknown_chapter": "{path}: глава {chapter} неизвестна этой установке и пропущена.",
    "progress.attempts": "попыток",
    "progress.skills_header": "Навыки (освоен, когда засчитано нужное число ответов, верных с первой попытки без "
        "подсказок; у вопросов с новыми примерами засчитываются только новые примеры):",
    "progress.skill_row": "{state}: засчитано {first_right} из {required} (попыток: {attempts}, подсказок: {hints})",
    "progress.mastered": "освоен",
    "progress.not_mastered": "не освоен",
    "exercise.predict_first": "Сначала предскажите: ответьте на вопрос «{title}» выше, потом двигайте и проверяйте.",
    "exercise.unknown": "Упражнения {id!r} нет; есть: {known}.",
    "exercise.not_code": "{id!r} — не упражнение на код: ответьте на него через check({id!r}, ответ).",
    "variant.invalid": "Номер варианта — целое число, 0 или больше: {variant} не подходит.",
    "variant.none": "У упражнения «{title}» один вариант, 0: новых примеров у него нет.",
    "code.stub": "Замените ... в теле функции своим кодом.",
    "code.not-callable": "Нужна функция, а передано {returned}. Передайте имя функции без скобок: саму функцию, "
        "а не результат её вызова.",
    "code.right": "Функция {function} совпала с движком во всех {count} случаях, включая скрытые.",
    "code.right_precision": "Функция {function} совпала с движком во всех {count} случаях, включая скрытые, с "
        "точностью {error} от наибольшего элемента: так считают float32 и другие форматы, менее точные, чем float64.",
    "code.raised": "Функция {function} выбросила исключение {case} — {error}.",
    "code.raised_at": "Функция {function} выбросила исключение {case} — {error}. Строка {lineno} вашего кода: "
        "{line}",
    "code.timeout": "Функция {function} работала {case} дольше {seconds} с и была остановлена. Здесь хватает "
        "миллисекунд: нет ли цикла, который не кончается?",
    "code.timeout_at": "Функция {function} работала {case} дольше {seconds} с и была остановлена. Здесь хватает "
        "миллисекунд: нет ли цикла, который не кончается? Остановлена в строке {lineno} вашего кода: {line}",
    "code.unreadable": "Функция {function} вернула {returned} {case}, а должна вернуть {expected}.",
    "code.sized": "{kind} длины {length}",
    "code.wrong-shape": "Функция {function} вернула {case} форму {shapes}, а должна вернуть {expected}.",
    "code.mutated": "Результат верный, но функция {function} меняет на месте свои входы: {arguments} (замечено "
        "{case}). Пишите x = x / c, а не x /= c: вызывающий код не ждёт, что его массивы изменятся.",
    "code.not-finite": "Функция {function} вернула nan или inf {case}, хотя входы конечны и результат движка "
        "конечен.",
    "code.differs": "Числа {case} не совпадают с движком: {outputs} (наибольшая разница {difference}). Сверьте "
        "код с формулами шаг за шагом.",
    "figure.alt": "Все числа рисунка напечатаны текстовой таблицей сразу под ним.",
    "folded.summary": "Ответ скрыт: раскройте, когда ответите на вопрос выше.",
}
