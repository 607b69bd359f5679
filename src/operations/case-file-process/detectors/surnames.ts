/**
 * Common Chinese surnames, used only where a label is also an ordinary word ("患者张三，男"): the
 * value counts as a name when it starts with one of these. Surnames that are also frequent
 * clinical words after 患者 (于, 曾, 左, 白, 阳, 查, 全, 原…) are left out on purpose.
 */
const SINGLE = new Set([
  ...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱覃武戴莫孔汤温施牛樊葛邢齐乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿兰焦俞柳甘祝宁尚符舒阮柯纪梅童凌毕季裴霍涂苗谷盛曲翁冉骆蓝游辛靳柴蒙鲍华喻祁蒲滕饶牟艾尤穆农卓古吉缪娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂佟臧闵苟邬卞姬仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩佘池麻苑迟邝鞠荆冀郁胥储栗燕楚鄢谌奚粟冼蔺闻仝郜阚帅屠朴盖练廉禹井祖漆巴丰卿狄宣晋扈晁芮阙浦戈鹿邸雍辜裘亓邰赫杭逯茹诸慕嵇湛戎茅揭尉冶檀昝',
]);
const COMPOUND = ['欧阳', '司马', '上官', '诸葛', '东方', '皇甫', '尉迟', '公孙', '慕容', '令狐', '长孙', '宇文', '司徒', '夏侯', '端木'];

export function startsWithSurname(text: string): boolean {
  return SINGLE.has(text[0] ?? '') || COMPOUND.some((surname) => text.startsWith(surname));
}
