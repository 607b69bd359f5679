/**
 * Common Chinese surnames, used only where a label is also an ordinary word ("患者张三，男"): the
 * value counts as a name when it is one of these and one or two more characters. Surnames that
 * are also frequent clinical words after 患者 (于, 曾, 左, 白, 阳, 查, 全, 原…) are left out on
 * purpose, and so are prose words that begin with a surname (PROSE_WORDS).
 */
const SINGLE = new Set([
  ...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱覃武戴莫孔汤温施牛樊葛邢齐乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿兰焦俞柳甘祝宁尚符舒阮柯纪梅童凌毕季裴霍涂苗谷盛曲翁冉骆蓝游辛靳柴蒙鲍华喻祁蒲滕饶牟艾尤穆农卓古吉缪娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂佟臧闵苟邬卞姬仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩佘池麻苑迟邝鞠荆冀郁胥储栗燕楚鄢谌奚粟冼蔺闻仝郜阚帅屠朴盖练廉禹井祖漆巴丰卿狄宣晋扈晁芮阙浦戈鹿邸雍辜裘亓邰赫杭逯茹诸慕嵇湛戎茅揭尉冶檀昝',
]);
const COMPOUND = ['欧阳', '司马', '上官', '诸葛', '东方', '皇甫', '尉迟', '公孙', '慕容', '令狐', '长孙', '宇文', '司徒', '夏侯', '端木'];

/**
 * Words of clinical prose that begin with a surname character ("患者高血压10年", "患者周身乏力",
 * "母亲宫颈癌"): after a label that is also an ordinary word they are no name.
 */
const PROSE_WORDS = [
  '高血压', '高热', '高龄', '高危', '高度', '黄疸', '宫颈', '周身', '周围', '陈旧', '张口', '焦虑', '陆续', '苏醒', '尤其',
  '符合', '尚可', '尚未', '尚无', '舒适', '程度', '艾滋', '任何', '申请', '施行', '夏季', '季节', '方可', '毛发', '温度',
  '冷汗', '余无', '颜面', '凌晨', '梅毒', '窦性', '麻木', '麻醉', '莫名', '石膏', '金属', '何时', '胡言', '顾虑', '宣教',
  '迟发', '游走', '华法林', '雷贝拉唑', '甘露醇', '蒙脱石', '沙丁胺醇', '柴胡', '牛奶', '齐全', '龙胆',
];

/** Length of the surname the text starts with (compound first), 0 if none or if it starts a prose word. */
export function surnameLength(text: string): number {
  if (PROSE_WORDS.some((word) => text.startsWith(word))) return 0;
  const compound = COMPOUND.find((surname) => text.startsWith(surname));
  if (compound) return compound.length;
  return SINGLE.has(text[0] ?? '') ? 1 : 0;
}

export function startsWithSurname(text: string): boolean {
  return surnameLength(text) > 0;
}
